import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// Typed inputs read from requests as the gateway forwards them, without a service: what an API answers to a request
/// that is wrong, word for word.
public enum RoutedRequests {
    /// `Input` read from a request with body `json` (none when empty), the path and query parameters given.
    public static func read<Input: RoutedInput>(
        _ type: Input.Type, body json: String = "", path: [String: String] = [:],
        query: [String: [String]] = [:]
    ) throws -> Input {
        let body = json.isEmpty ? JSONValue.null : try JSONValue.parse(Array(json.utf8), maximumDepth: 32)
        return try Input.decoding.decode(Input.self, from: JSONValueEncoder().encode(HTTPInput(body: body, path: path, query: query)))
    }

    /// What reading the request is refused with: FastAPI's 422 as `loc` (joined with dots), `msg` and `type`; any other
    /// RPC error as its code and message; nil when it reads.
    public static func problem<Input: RoutedInput>(
        _ type: Input.Type, _ json: String = "", path: [String: String] = [:],
        query: [String: [String]] = [:]
    ) -> [String]? {
        do {
            _ = try read(Input.self, body: json, path: path, query: query)
            return nil
        } catch {
            return describe(error)
        }
    }

    /// An error as ``problem(_:_:path:query:)`` gives it.
    public static func describe(_ error: any Error) -> [String] {
        guard let error = error as? RPCError else { return ["\(error)"] }
        guard case .array(let problems)? = error.details, case .object(let problem)? = problems.first,
            case .array(let loc)? = problem["loc"], case .string(let msg)? = problem["msg"], case .string(let kind)? = problem["type"]
        else { return ["\(error.code)", error.message] }
        return [loc.compactMap(\.stringValue).joined(separator: "."), msg, kind]
    }
}
