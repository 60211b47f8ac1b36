import AuthService
import CustodianRuntime

await ServiceHost.main(AuthService.definition)
