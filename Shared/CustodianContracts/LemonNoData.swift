import CustodianHTTP

/// What a tracing-app route that has nothing to say answers: `null`, the envelope's `"data": null` (docs/lemon.md).
public struct LemonNoData: RoutedJSON, Equatable {
    public init() {}

    public init(from decoder: any Decoder) throws {
        guard try decoder.singleValueContainer().decodeNil() else {
            throw DecodingError.typeMismatch(Self.self, .init(codingPath: decoder.codingPath, debugDescription: "expected null"))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encodeNil()
    }
}
