import Testing

/// The suites that load the machine (the load generator's) and the one that times the platform's answers during a
/// database outage, one after another rather than all at once: on a 2-core machine, a load run beside the outage
/// suite once held an answer the outage suite times for 4 s. Each keeps its own platform.
@Suite("One at a time: load runs and the timed outage", .serialized)
struct OneAtATime {}
