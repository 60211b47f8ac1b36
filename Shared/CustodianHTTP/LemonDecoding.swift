import CustodianJSON
import CustodianRPC

extension RequestDecoding {
    /// The LEMON tracing API's words (docs/lemon.md): a 400 whose message is the API's for the member, the same whether it
    /// is missing or of the wrong type (`Invalid seed`, `Missing digital signature`: ``LemonMember/refusal``); a body that
    /// is no object at all is `Missing request payload`.
    public static let lemon = RequestDecoding { error in
        RPCError.badRequest(LemonProblem.member(of: error)?.refusal ?? LemonProblem.missingPayload)
    }
}

/// A member of a LEMON body, with the API's message for it when it is missing or cannot be read. Members match in any
/// case (the apps write `AppId`, others `appId`): read them with ``RequestReader/lemonBody(keyedBy:)``.
public protocol LemonMember: CodingKey, CaseIterable, Sendable {
    var refusal: String { get }
}

enum LemonProblem {
    static let missingPayload = "Missing request payload"

    /// The member a decoding error is about: the innermost ``LemonMember`` of its path.
    static func member(of error: DecodingError) -> (any LemonMember)? {
        switch error {
        case .keyNotFound(let key, let context):
            (key as? any LemonMember) ?? innermost(context.codingPath)
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            innermost(context.codingPath)
        @unknown default:
            nil
        }
    }

    private static func innermost(_ path: [any CodingKey]) -> (any LemonMember)? {
        path.reversed().lazy.compactMap { $0 as? any LemonMember }.first
    }
}

extension RequestReader {
    /// The body's members by name in any case; a body that is not an object is refused (`Missing request payload`).
    public func lemonBody<Key: LemonMember>(keyedBy type: Key.Type) throws -> LemonBody<Key> {
        try LemonBody(body(keyedBy: ParameterKey.self))
    }
}

/// A LEMON body's members, each found by its name in any case.
public struct LemonBody<Key: LemonMember> {
    private let container: KeyedDecodingContainer<ParameterKey>
    /// The names as sent, by their lower-case form; more than one when the body repeats a member in another case.
    private let spellings: [String: [ParameterKey]]

    init(_ container: KeyedDecodingContainer<ParameterKey>) {
        self.container = container
        spellings = Dictionary(grouping: container.allKeys.sorted { $0.stringValue < $1.stringValue }) { $0.stringValue.lowercased() }
    }

    /// The names that are no member's, as sent, sorted.
    public var unknownNames: [String] {
        let known = Set(Key.allCases.map { $0.stringValue.lowercased() })
        return spellings.filter { !known.contains($0.key) }.values.flatMap { $0.map(\.stringValue) }.sorted()
    }

    /// Whether the body names `key` more than once (in different cases).
    public func isRepeated(_ key: Key) -> Bool {
        (spellings[key.stringValue.lowercased()]?.count ?? 0) > 1
    }

    /// The member's value, nil when it is absent or `null`; a value of another type is refused in the member's words.
    public func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let sent = spellings[key.stringValue.lowercased()]?.first else { return nil }
        do {
            return try container.decodeIfPresent(T.self, forKey: sent)
        } catch is DecodingError {
            // Said of the member as the API names it, whatever the client's spelling.
            throw DecodingError.typeMismatch(T.self, .init(codingPath: container.codingPath + [key], debugDescription: "\(sent.stringValue)"))
        }
    }
}
