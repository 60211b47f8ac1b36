import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Testing

/// `HTTPInput.decodeBody`'s 422 names the field whose number fits no integer (Foundation's error has no path).
@Suite("Body decoding errors")
struct BodyDecodingErrorTests {
    struct Symptom: Decodable {
        var position: Int
        var weight: Double?
    }

    @Test func aFractionOrAHugeNumberInAnIntegerFieldIsNamed() throws {
        for number in [JSONValue.double(1.5), .double(1e20), .double(-1e300)] {
            let error = try #require(throws: RPCError.self) {
                try HTTPInput(body: ["position": number, "weight": 2]).decodeBody(as: Symptom.self)
            }
            #expect(error.code == .unprocessable)
            #expect(error.message == "position: value is not a valid integer", "\(error)")
        }
        // With two candidates the field cannot be told, but the problem still can.
        let both = try #require(throws: RPCError.self) {
            try HTTPInput(body: ["position": .double(1.5), "weight": .double(2.5)]).decodeBody(as: Symptom.self)
        }
        #expect(both.message == "value is not a valid integer", "\(both)")
    }
}
