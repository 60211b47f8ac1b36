import CustodianRuntime
import VaultService

await ServiceHost.main(VaultService.definition)
