import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Testing

/// `HTTPInput.decodeBody`'s 422 (FastAPI's words) names the field whose number fits no integer.
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
        // With two fractions, the one in the integer field is named.
        let both = try #require(throws: RPCError.self) {
            try HTTPInput(body: ["position": .double(1.5), "weight": .double(2.5)]).decodeBody(as: Symptom.self)
        }
        #expect(both.message == "position: value is not a valid integer", "\(both)")
        #expect(both.details == [["loc": ["body", "position"], "msg": "value is not a valid integer", "type": "type_error.integer"]])
    }
}
