import CustodianRuntime
import LinksService

await ServiceHost.main(LinksService.definition)
