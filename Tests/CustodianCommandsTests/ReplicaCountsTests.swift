import Testing

@testable import CustodianCommands

/// `custodian up --replicas` (and CUSTODIAN_REPLICAS): which replicas run, and the values it refuses before anything starts.
@Suite("up --replicas")
struct ReplicaCountsTests {
    @Test func countsAreReadPerServiceAndTheOthersRunOnce() throws {
        let counts = try ReplicaCounts(" devices=3 , vault = 2")
        #expect(counts.count(of: "devices") == 3)
        #expect(counts.count(of: "vault") == 2)
        #expect(counts.count(of: "auth") == 1)
        // Six services: 3 + 2 and one each of the four others.
        #expect(counts.total == 9)
    }

    @Test func nothingGivenIsOneOfEach() throws {
        for text in [nil, "", "  "] {
            let counts = try ReplicaCounts(text)
            #expect(counts.total == 6, "\(String(describing: text))")
            #expect(counts.instances(of: "devices") == ["devices"])
        }
    }

    /// A lone replica keeps the service's own name (its socket's name, as before replicas existed); several are numbered.
    @Test func replicasAreNamedAfterTheirService() throws {
        let counts = try ReplicaCounts("devices=3,links=1")
        #expect(counts.instances(of: "devices") == ["devices-1", "devices-2", "devices-3"])
        #expect(counts.instances(of: "links") == ["links"])
        #expect(counts.instances(of: "auth") == ["auth"])
    }

    /// One gateway per machine: `gateway=1` is accepted (it is what runs), any other count refused with the reason.
    @Test func theGatewayRunsOnce() throws {
        #expect(try ReplicaCounts("gateway=1,devices=2").total == 7)
        #expect(refusal("gateway=2") == "--replicas: one gateway per machine (it uses every core already; see docs/operations.md, Replicas)")
    }

    @Test func wrongValuesAreRefusedWithWhatIsExpected() {
        #expect(refusal("devices") == "--replicas: 'devices' is not service=count (for example devices=3,vault=2)")
        #expect(refusal("devices=three") == "--replicas: 'devices=three' is not service=count (for example devices=3,vault=2)")
        #expect(refusal("printer=2") == "--replicas: unknown service 'printer'; the services are auth, vault, routes, devices, statistics, links")
        #expect(refusal("devices=0") == "--replicas: devices=0: a service runs 1 to 16 replicas")
        #expect(refusal("vault=17") == "--replicas: vault=17: a service runs 1 to 16 replicas")
        #expect(refusal("vault=16") == nil)
    }

    private func refusal(_ text: String) -> String? {
        do {
            _ = try ReplicaCounts(text)
            return nil
        } catch {
            return "\(error)"
        }
    }
}
