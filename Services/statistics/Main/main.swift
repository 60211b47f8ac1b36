import CustodianRuntime
import StatisticsService

await ServiceHost.main(StatisticsService.definition)
