import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import ServiceTestSupport
import Testing

/// The vault's typed inputs read from requests as the gateway forwards them: the OwnYourData and admin APIs' answers to
/// a wrong request, word for word, and which of them wait until the vault has looked something up.
@Suite("vault: reading requests")
struct VaultRequestTests {
    static let repo = ["identifier": "oyd.location"]

    /// What the vault gets when it asks for a part it checks late: as ``RoutedRequests/problem(_:_:path:query:)`` words it.
    static func refusal<Value>(_ part: Deferred<Value>) -> [String]? {
        do {
            _ = try part.get()
            return nil
        } catch {
            return RoutedRequests.describe(error)
        }
    }

    @Test func aWriteIsARecordOrABatchOfAtMostAThousand() throws {
        #expect(RoutedRequests.problem(ItemsWrite.self, "", path: Self.repo) == ["400", "The body must be a JSON record or an array of records"])
        #expect(
            RoutedRequests.problem(ItemsWrite.self, #""text""#, path: Self.repo) == ["400", "The body must be a JSON record or an array of records"])
        #expect(RoutedRequests.problem(ItemsWrite.self, "[]", path: Self.repo) == ["400", "The batch is empty"])
        let batch = "[" + Array(repeating: "{}", count: 1001).joined(separator: ",") + "]"
        #expect(RoutedRequests.problem(ItemsWrite.self, batch, path: Self.repo) == ["413", "A batch may hold at most 1000 records"])

        let single = try RoutedRequests.read(
            ItemsWrite.self, body: #"{"version":"0.4","value":"C0FFEE","nonce":"\#(String(repeating: "AB", count: 24))"}"#, path: Self.repo)
        #expect(!single.isBatch && single.identifier == "oyd.location")
        #expect(try single.records[0].checked.get().nonce == String(repeating: "ab", count: 24))
        // A refused record is answered beside the others, not as the request's error.
        let mixed = try RoutedRequests.read(ItemsWrite.self, body: #"[1,{"version":"0.4","value":"xyz","nonce":"00"}]"#, path: Self.repo)
        #expect(mixed.records.map { (try? $0.checked.get()) == nil } == [true, true])
        #expect(
            mixed.records.map { record -> String? in if case .failure(let refusal) = record.checked { refusal.message } else { nil } } == [
                "A record must be a JSON object", "An encrypted record (version 0.4) needs a hexadecimal value",
            ])
    }

    @Test func pagingIsCheckedOnlyWhenTheVaultAsks() throws {
        let read = try RoutedRequests.read(ItemsRead.self, path: Self.repo, query: ["size": ["0"], "page": ["2", "x"]])
        #expect(Self.refusal(read.paging) == ["400", "size must be a whole number from 1 to 1000"])
        // A repeated parameter's first value counts.
        let paged = try RoutedRequests.read(ItemsRead.self, path: Self.repo, query: ["page": ["3", "x"], "last_days": ["7"]])
        #expect(try paged.paging.get() == ItemsPaging(page: 3, size: 100, last: nil, lastDays: 7))
        // The password is read first, in FastAPI's words; the paging waits.
        #expect(
            RoutedRequests.problem(ItemsDecryption.self, "{}", path: Self.repo, query: ["size": ["0"]]) == [
                "body.password", "field required", "value_error.missing",
            ])
        #expect(RoutedRequests.problem(ItemsDecryption.self, #"{"password":"x"}"#, path: Self.repo, query: ["size": ["0"]]) == nil)
    }

    /// The admin API answers 404 for a user or module that does not exist before it looks at the body or the format.
    @Test func adminBodiesWaitForTheLookUp() throws {
        let user = ["user_id": "7"]
        let noBody = try RoutedRequests.read(CreateModuleRequest.self, path: user)
        #expect(noBody.userID == 7)
        #expect(Self.refusal(noBody.module) == ["body", "field required", "value_error.missing"])
        let notANumber = try RoutedRequests.read(CreateModuleRequest.self, body: #"{"name":"X","url":"https://x.example"}"#, path: ["user_id": "x"])
        #expect(notANumber.userID == nil && notANumber.module.value?.name == "X")
        let badURL = try RoutedRequests.read(CreateModuleRequest.self, body: #"{"name":"X","url":"ftp://nope"}"#, path: user)
        #expect(Self.refusal(badURL.module) == ["body.url", "url must be an http(s) URL", "value_error"])
        let repo = try RoutedRequests.read(CreateRepoRequest.self, body: #"{"identifier":5}"#, path: user)
        #expect(Self.refusal(repo.identifier) == ["body.identifier", "str type expected", "type_error.str"])
        let qr = try RoutedRequests.read(ModuleQRRequest.self, path: ["module_id": "3"], query: ["format": ["gif"]])
        #expect(qr.moduleID == 3 && Self.refusal(qr.format) == ["400", "format must be png or svg"])
        // A grant's body comes first.
        #expect(
            RoutedRequests.problem(GrantRequest.self, #"{"repo":"a","read":true}"#, path: ["module_id": "x"]) == [
                "body.write", "field required", "value_error.missing",
            ])
    }

    /// What a typed input writes is a request that reads back as it.
    @Test func typedInputsReadBackAsThemselves() throws {
        func roundTrip<Input: RoutedInput & Equatable>(_ input: Input) throws -> Bool {
            try Input.decoding.decode(Input.self, from: JSONValueEncoder().encode(input)) == input
        }
        #expect(try roundTrip(ItemsWrite(identifier: "r", records: [["a": 1], "b"], isBatch: true)))
        #expect(try roundTrip(ItemsRead(identifier: "r", paging: ItemsPaging(page: 2, size: 5, last: 10, lastDays: nil))))
        #expect(try roundTrip(ItemsDecryption(password: "p", identifier: "r")))
        #expect(try roundTrip(CreateModuleRequest(userID: 1, module: ModuleDefinition(name: "M", url: "https://m.example"))))
        #expect(try roundTrip(CreateRepoRequest(userID: 1, identifier: "r")))
        #expect(try roundTrip(GrantRequest(moduleID: 1, repo: "r", read: true, write: false)))
        #expect(try roundTrip(ModuleQRRequest(moduleID: 1, format: .svg)))
        #expect(try roundTrip(VaultUsersQuery(after: 3, limit: 10)))
    }
}
