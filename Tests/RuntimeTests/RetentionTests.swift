import CustodianRuntime
import Testing

@Suite("Retention settings")
struct RetentionSettingsTests {
    static let submissions = Retention(
        "lemon_submissions", default: .seconds(14 * 86400), table: "statistics.submissions", timeColumn: "submitted_at")

    @Test func aClassKeepsItsDefaultUntilTheDeploymentSetsAnAgeOrOff() throws {
        #expect(Self.submissions.key == "CUSTODIAN_RETENTION_LEMON_SUBMISSIONS")
        #expect(try Self.submissions.age(in: Configuration(environment: [:], arguments: [])) == .seconds(14 * 86400))
        #expect(try Self.submissions.age(in: Configuration(environment: [Self.submissions.key: "90d"], arguments: [])) == .seconds(90 * 86400))
        #expect(try Self.submissions.age(in: Configuration(environment: [Self.submissions.key: "off"], arguments: [])) == nil)
        let vault = Retention("vault_items", table: "vault.items", timeColumn: "created_at")
        #expect(try vault.age(in: Configuration(environment: [:], arguments: [])) == nil)
    }

    @Test func anAgeThatIsNoDurationIsRefusedWithTheSettingNamed() throws {
        for text in ["soon", "0d", "-3d", "14"] {
            let configuration = try Configuration(environment: [Self.submissions.key: text], arguments: [])
            #expect(throws: ConfigurationError.self, "\(text)") { try Self.submissions.age(in: configuration) }
            do {
                _ = try Self.submissions.age(in: configuration)
            } catch {
                #expect("\(error)".contains("CUSTODIAN_RETENTION_LEMON_SUBMISSIONS"), "\(error)")
            }
        }
    }
}
