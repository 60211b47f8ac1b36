import CustodianJSON
import Foundation
import Testing

@Suite("Explicit nulls")
struct ExplicitNullTests {
    struct Item: Codable, Equatable {
        var name: String
        @ExplicitNull var unit: String?
    }

    @Test func absentValuesAreWrittenAsNullAndMissingKeysReadAsAbsent() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        #expect(String(decoding: try encoder.encode(Item(name: "heartbeat", unit: nil)), as: UTF8.self) == #"{"name":"heartbeat","unit":null}"#)
        #expect(try JSONDecoder().decode(Item.self, from: Data(#"{"name":"roomTemp"}"#.utf8)) == Item(name: "roomTemp", unit: nil))
        #expect(try JSONDecoder().decode(Item.self, from: Data(#"{"name":"roomTemp","unit":"°C"}"#.utf8)).unit == "°C")
    }
}
