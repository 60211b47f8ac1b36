import CustodianLoad

/// Twomes uploads with 1 to 256 connections, and batches of 100 measurements.
struct IngestionBench {
    let duration: Duration

    /// The figures, and how many acknowledged measurements the read-back did not find.
    func run(_ client: LoadClient) async throws -> ([BenchReport.Ingestion], Int) {
        let heartbeats = try await Workloads.twomesHeartbeats(client: client, devices: 256, log: { _ in })
        let batches = try await Workloads.twomesBatches(client: client, devices: 64, measurements: 100, log: { _ in })
        var rows: [BenchReport.Ingestion] = []
        for (workload, connections, measurements) in [
            (heartbeats, 1, 1), (heartbeats, 8, 1), (heartbeats, 32, 1), (heartbeats, 256, 1), (batches, 8, 100),
        ] {
            let plan = LoadPlan(model: .closed(concurrency: connections), duration: duration, scenarios: [], clients: 0, verify: false)
            let summary = try await LoadRunner.run(plan, prepared: [(workload, 1)], client: client, output: .quiet).total
            rows.append(
                BenchReport.Ingestion(
                    connections: connections, measurementsPerUpload: measurements, uploadsPerSecond: summary.throughput,
                    measurementsPerSecond: summary.throughput * Double(measurements), p50Milliseconds: summary.p50Milliseconds,
                    p99Milliseconds: summary.p99Milliseconds, errors: summary.errors))
        }
        // Every measurement the platform acknowledged, read back.
        var lost = 0
        for workload in [heartbeats, batches] { lost += try await workload.verify(client: client).lost }
        return (rows, lost)
    }
}
