import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// `PUT /admin/v1/statistics/countries/{alpha2}` and `…/languages/{alpha2}`: adds or renames one, and (de)activates it
/// with `active`.
public struct PlaceUpsert: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    /// As in the path: two letters, in any case.
    public var alpha2: String
    /// Trimmed.
    public var name: String
    public var active: Bool?

    public init(alpha2: String, name: String, active: Bool? = nil) {
        self.alpha2 = alpha2
        self.name = name
        self.active = active
    }

    enum CodingKeys: String, CodingKey { case name, active }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        let body = try request.body(keyedBy: CodingKeys.self)
        let name = try body.decode(String.self, forKey: .name)
        active = try body.decodeIfPresent(Bool.self, forKey: .active)
        alpha2 = try request.path("alpha2")
        guard Alpha2.isValid(alpha2) else {
            throw RPCError.badRequest("'\(Alpha2.clip(alpha2))' is not an alpha2 code (two letters)", reason: "invalid_alpha2")
        }
        self.name = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...100).contains(self.name.count), !ReferenceText.hasControlCharacters(self.name) else {
            throw RPCError.validation(location: ["body", "name"], message: "a name has 1 to 100 characters and no control characters")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var body: [String: JSONValue] = ["name": .string(name)]
        body["active"] = active.map { .bool($0) }
        try HTTPInput(body: .object(body), path: ["alpha2": alpha2]).encode(to: encoder)
    }
}

/// `PUT /admin/v1/statistics/symptoms/{key}`: a symptom added (with at least its English text) or changed: the
/// translations given replace those languages' (others are kept), its position, `active`. Whether each language is
/// registered is the service's to look up.
public struct SymptomUpsert: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var key: String
    /// Lower-case language, trimmed text; in the order of the languages as sent.
    public var translations: [Translation]
    public var position: Int?
    public var active: Bool?

    public struct Translation: Sendable, Equatable {
        public var language: String
        public var text: String

        public init(language: String, text: String) {
            self.language = language
            self.text = text
        }
    }

    public init(key: String, translations: [Translation] = [], position: Int? = nil, active: Bool? = nil) {
        self.key = key
        self.translations = translations
        self.position = position
        self.active = active
    }

    enum CodingKeys: String, CodingKey { case translations, position, active }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        let body = try request.body(keyedBy: CodingKeys.self)
        let sent = try body.decodeIfPresent([String: String].self, forKey: .translations) ?? [:]
        position = try body.decodeIfPresent(Int.self, forKey: .position)
        active = try body.decodeIfPresent(Bool.self, forKey: .active)
        key = try request.path("key")
        guard SymptomPath.isKey(key) else {
            throw RPCError.badRequest("a symptom key has 1 to 50 letters, digits, '-', '_' or '.'", reason: "invalid_symptom_key")
        }
        if let position, !(0...1_000_000).contains(position) {
            throw RPCError.validation(location: ["body", "position"], message: "position is from 0 to 1000000")
        }
        translations = []
        for (language, text) in sent.sorted(by: { $0.key < $1.key }) {
            let value = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard Alpha2.isValid(language) else {
                throw RPCError.validation(location: ["body", "translations", language], message: "a language is an alpha2 code")
            }
            guard (1...200).contains(value.count), !ReferenceText.hasControlCharacters(value) else {
                throw RPCError.validation(
                    location: ["body", "translations", language], message: "a translation has 1 to 200 characters and no control characters")
            }
            translations.append(Translation(language: language.lowercased(), text: value))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var body: [String: JSONValue] = [:]
        if !translations.isEmpty {
            body["translations"] = .object(Dictionary(translations.map { ($0.language, .string($0.text)) }) { _, last in last })
        }
        body["position"] = position.map { .int(Int64($0)) }
        body["active"] = active.map { .bool($0) }
        try HTTPInput(body: .object(body), path: ["key": key]).encode(to: encoder)
    }
}

/// `DELETE /admin/v1/statistics/symptoms/{key}`: the symptom named.
public struct SymptomPath: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var key: String

    public init(key: String) {
        self.key = key
    }

    public init(from decoder: any Decoder) throws {
        key = try RequestReader(decoder).path("key")
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["key": key]).encode(to: encoder)
    }

    /// 1 to 50 ASCII letters, digits, `-`, `_` or `.`.
    public static func isKey(_ key: String) -> Bool {
        (1...SubmissionProblem.maximumSymptomLength).contains(key.count)
            && key.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-_.".unicodeScalars.contains($0)) }
    }
}

/// Names and translations as admins type them.
enum ReferenceText {
    static func hasControlCharacters(_ text: String) -> Bool {
        text.unicodeScalars.contains { $0.properties.generalCategory == .control }
    }
}
