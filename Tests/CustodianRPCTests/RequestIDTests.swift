import Foundation
import Testing
@testable import CustodianRPC

@Suite struct RequestIDTests {
    @Test func requestIDsAreLowerCaseVersion4UUIDs() throws {
        var seen = Set<String>()
        for _ in 0..<1000 {
            let id = RequestID.random()
            let parsed = try #require(UUID(uuidString: id), "\(id) is not a UUID")
            #expect(id == parsed.uuidString.lowercased())
            let bytes = parsed.uuid
            #expect(bytes.6 >> 4 == 4, "version 4")
            #expect(bytes.8 >> 6 == 0b10, "RFC 9562 variant")
            seen.insert(id)
        }
        #expect(seen.count == 1000)
    }
}
