import GatewayKit

await GatewayMain.run()
