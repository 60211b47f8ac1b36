import Foundation
import Testing

@testable import CustodianCommands

/// `custodian restart SERVICE`: what it says when it cannot ask a running `custodian up`.
@Suite("restart")
struct RestartTests {
    @Test func anUnknownServiceIsAUsageErrorNamingTheServices() async {
        #expect(
            await failure(["restart", "printer"]) == "unknown service 'printer'; the services are auth, vault, routes, devices, statistics, links")
        #expect(
            await failure(["restart", "gateway"]) == "unknown service 'gateway'; the services are auth, vault, routes, devices, statistics, links")
    }

    @Test func withoutARunningUpItSaysSoAndRequestsNothing() async throws {
        try await withTemporaryDirectory { data in
            #expect(await failure(["restart", "devices", "--data-dir", data]) == "no `custodian up` is running with the data directory \(data)")
            // A pid file left by an `up` that is gone (no such process) is no running `up` either.
            try FileManager.default.createDirectory(atPath: data + "/pids", withIntermediateDirectories: true)
            try "999999999".write(toFile: data + "/pids/custodian.pid", atomically: true, encoding: .utf8)
            #expect(await failure(["restart", "devices", "--data-dir", data]) == "no `custodian up` is running with the data directory \(data)")
            #expect(!FileManager.default.fileExists(atPath: data + "/control/devices.request"))
        }
    }
}

/// The reason `custodian up` prints when a program stops: read from the end of the program's log.
@Suite("up: why a program stopped")
struct LastErrorTests {
    func lastError(_ log: String) async throws -> String? {
        try await withTemporaryDirectory { folder in
            try log.write(toFile: folder + "/program.log", atomically: true, encoding: .utf8)
            return Supervisor.lastError(inLog: folder + "/program.log")
        }
    }

    @Test func theLastErrorRecordIsTheReasonEvenWithRecordsAfterIt() async throws {
        let log = """
            2026-01-01T10:00:00Z info gateway : starting
            2026-01-01T10:00:01Z error gateway : [error=cannot bind 127.0.0.1:8443] gateway stopped with an error
            2026-01-01T10:00:01Z info gateway : shutting down

            """
        #expect(try await lastError(log) == "2026-01-01T10:00:01Z error gateway : [error=cannot bind 127.0.0.1:8443] gateway stopped with an error")
    }

    @Test func aCriticalJSONRecordCounts() async throws {
        let log = #"""
            {"level":"info","message":"starting"}
            {"level":"critical","message":"cannot read CUSTODIAN_DATABASE_URL_FILE"}
            {"level":"info","message":"stopped"}
            """#
        #expect(try await lastError(log) == #"{"level":"critical","message":"cannot read CUSTODIAN_DATABASE_URL_FILE"}"#)
    }

    /// A process that cannot read its settings writes a plain line to standard error before it logs anything.
    @Test func aLastLineThatIsNoLogRecordIsTheReason() async throws {
        let log = """
            2026-01-01T10:00:00Z info devices : starting
            devices: CUSTODIAN_HTTP_MAX_HEADER_SIZE must be at least 1024, not '7'

            """
        #expect(try await lastError(log) == "devices: CUSTODIAN_HTTP_MAX_HEADER_SIZE must be at least 1024, not '7'")
    }

    @Test func aLogOfOnlyOrdinaryRecordsGivesNoReason() async throws {
        #expect(try await lastError("2026-01-01T10:00:00Z info auth : starting\n2026-01-01T10:00:02Z notice auth : stopped\n") == nil)
        #expect(try await lastError("") == nil)
        #expect(Supervisor.lastError(inLog: "/nonexistent/custodian.log") == nil)
    }
}
