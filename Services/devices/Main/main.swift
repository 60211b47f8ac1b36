import CustodianRuntime
import DevicesService

await ServiceHost.main(DevicesService.definition)
