import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Testing

/// The LEMON tracing API's decoding layer: a member missing or of the wrong type is a 400 in the member's own words,
/// members are found in any case, and a body that is no object is `Missing request payload` (docs/lemon.md).
@Suite("LEMON decoding layer")
struct LemonDecodingTests {
    struct Probe: RoutedInput {
        static var decoding: RequestDecoding { .lemon }

        enum Member: String, LemonMember {
            case seed = "Seed", pushToken = "PushToken"

            var refusal: String {
                switch self {
                case .seed: "Invalid seed"
                case .pushToken: "Invalid push token"
                }
            }
        }

        var seed: String
        var pushToken: String?

        init(from decoder: any Decoder) throws {
            let body = try RequestReader(decoder).lemonBody(keyedBy: Member.self)
            guard let seed = try body.decodeIfPresent(String.self, forKey: .seed) else {
                throw DecodingError.keyNotFound(Member.seed, .init(codingPath: [RequestKey.body], debugDescription: "missing"))
            }
            self.seed = seed
            pushToken = try body.decodeIfPresent(String.self, forKey: .pushToken)
        }

        func encode(to encoder: any Encoder) throws {}
    }

    static func refusal(_ body: JSONValue) -> RPCError? {
        do {
            _ = try Probe.decoding.decode(Probe.self, from: JSONValueEncoder().encode(HTTPInput(body: body)))
            return nil
        } catch {
            return error as? RPCError
        }
    }

    @Test func aMissingMemberIsRefusedInItsOwnWords() {
        #expect(Self.refusal(["PushToken": "token-1"]) == .badRequest("Invalid seed"))
    }

    @Test func aMemberOfTheWrongTypeIsRefusedInItsOwnWords() {
        #expect(Self.refusal(["Seed": "abc", "pushtoken": 12]) == .badRequest("Invalid push token"))
        #expect(Self.refusal(["seed": ["a"]]) == .badRequest("Invalid seed"))
    }

    @Test func aBodyThatIsNoObjectIsAMissingPayload() {
        #expect(Self.refusal(.null) == .badRequest("Missing request payload"))
        #expect(Self.refusal(["Seed"]) == .badRequest("Missing request payload"))
    }

    @Test func membersAreFoundInAnyCase() throws {
        let probe = try Probe.decoding.decode(Probe.self, from: JSONValueEncoder().encode(HTTPInput(body: ["SEED": "abc", "pushToken": "t"])))
        #expect(probe.seed == "abc")
        #expect(probe.pushToken == "t")
    }
}
