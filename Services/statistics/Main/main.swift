import CustodianRuntime

// The statistics domain comes in a later issue; the service already runs, owns its schema and answers system.*.
await ServiceHost.main(ServiceDefinition(name: "statistics"))
