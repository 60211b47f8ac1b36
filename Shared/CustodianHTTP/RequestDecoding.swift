import CustodianJSON
import CustodianRPC

/// How one API style reads a routed method's input and words what it cannot read: the one place per style where a
/// member that is missing or of the wrong type becomes that API's error (FastAPI's 422 for Twomes and the admin API,
/// the thesis' messages for OpenSense). A check of the input's own (a Twomes time, a token's length) throws its API's
/// error from the input's `init(from:)`, which passes through as it is.
public struct RequestDecoding: Sendable {
    /// The API's error for what the decoder could not read.
    let refusal: @Sendable (DecodingError) -> RPCError

    public init(refusal: @escaping @Sendable (DecodingError) -> RPCError) {
        self.refusal = refusal
    }

    /// `T` read straight from `request`'s parsed tree (no text, no copy); `codingPath` is where `request` sits (`body`
    /// for a body alone), for the errors' locations.
    public func decode<T: Decodable>(_ type: T.Type, from request: JSONValue, codingPath: [any CodingKey] = []) throws -> T {
        do {
            return try JSONValueDecoder().decode(T.self, from: request, codingPath: codingPath)
        } catch let error as DecodingError {
            throw refusal(error)
        }
    }

    /// Where a decoding path points, as the APIs name it: member names, and array positions as numbers
    /// (`["body", "property_measurements", "0", "timestamp"]`).
    public static func location(_ codingPath: [any CodingKey]) -> [String] {
        codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
    }
}
