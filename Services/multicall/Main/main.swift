import AuthService
import CustodianCommands
import CustodianRuntime
import DevicesService
import Foundation
import GatewayKit
import LinksService
import RoutesService
import StatisticsService
import VaultService

// Every executable of the platform in one, run by the name it is called by (`gateway`, `auth`, … are links to it), as
// busybox does. The container image ships this instead of eight executables that are each mostly the same libraries:
// 35 MB where the eight stripped ones took 168 MB (docs/operations.md, "Docker Compose"). Outside the image the eight
// executables remain, and each behaves exactly as this does under its name.
switch URL(fileURLWithPath: CommandLine.arguments.first ?? "custodian").lastPathComponent {
case "gateway": await GatewayMain.run()
case "auth": await ServiceHost.main(AuthService.definition)
case "vault": await ServiceHost.main(VaultService.definition)
case "routes": await ServiceHost.main(RoutesService.definition)
case "devices": await ServiceHost.main(DevicesService.definition)
case "statistics": await ServiceHost.main(StatisticsService.definition)
case "links": await ServiceHost.main(LinksService.definition)
default: await Custodian.runAsRoot()
}
