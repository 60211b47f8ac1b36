import CustodianRuntime
import RoutesService

await ServiceHost.main(RoutesService.definition)
