import CustodianCommands

// Every command lives in CustodianCommands, where it can be unit-tested; this file only starts the root one.
await Custodian.runAsRoot()
