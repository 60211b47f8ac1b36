import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// The principals the gateway establishes for this service's routes (declared `requires: [.app]` where registered).
enum Access {
    /// The app instance's opaque device id (the JWT's subject).
    static func appID(_ context: CallContext) throws -> String {
        guard let principal = context.principal, !principal.id.isEmpty else {
            throw RPCError.unauthenticated("Missing or Invalid JWT")
        }
        return principal.id
    }
}

/// Countries, languages and symptoms with their translations: what apps list and submissions are checked
/// against, seeded by the migrations and edited by admins.
public struct ReferenceData: Sendable {
    let database: Database

    public init(database: Database) {
        self.database = database
    }

    static let defaultLanguage = "en"

    // MARK: Lookups

    /// The active countries, languages and symptoms.
    func sets(logger: Logger) async throws -> ReferenceSets {
        async let countries = column("SELECT alpha2 FROM statistics.countries WHERE active", logger: logger)
        async let languages = column("SELECT alpha2 FROM statistics.languages WHERE active", logger: logger)
        async let symptoms = column("SELECT key FROM statistics.symptoms WHERE active", logger: logger)
        return ReferenceSets(countries: Set(try await countries), languages: Set(try await languages), symptoms: Set(try await symptoms))
    }

    private func column(_ sql: String, logger: Logger) async throws -> [String] {
        var values: [String] = []
        for try await value in try await database.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(String.self) {
            values.append(value)
        }
        return values
    }

    /// For `auth`'s handshake, which takes a language only if apps can be served in it.
    func isSupported(language: LanguageQuery, context: CallContext) async throws -> LanguageSupport {
        guard Alpha2.isValid(language.language) else { return LanguageSupport(supported: false) }
        let supported = try await exists(
            "SELECT 1 FROM statistics.languages WHERE alpha2 = $1 AND active", language.language.lowercased(), logger: context.logger)
        return LanguageSupport(supported: supported)
    }

    // MARK: App routes

    /// `GET /api/v1/symptoms?language=xx`: the active symptoms in that language (English by default), each
    /// falling back to English where it has no translation yet.
    func symptoms(_ input: SymptomsQuery, context: CallContext) async throws -> [SymptomText] {
        var language = Self.defaultLanguage
        if let requested = input.language {
            let code = requested.lowercased()
            guard try await exists("SELECT 1 FROM statistics.languages WHERE alpha2 = $1 AND active", code, logger: context.logger) else {
                throw SymptomsQuery.unsupported(requested)
            }
            language = code
        }
        let rows = try await database.query(
            """
            SELECT s.key, COALESCE(t.value, en.value, s.key)
            FROM statistics.symptoms s
            LEFT JOIN statistics.symptom_translations t ON t.symptom_key = s.key AND t.language = \(language)
            LEFT JOIN statistics.symptom_translations en ON en.symptom_key = s.key AND en.language = \(Self.defaultLanguage)
            WHERE s.active ORDER BY s.position, s.key
            """, logger: context.logger)
        var list: [SymptomText] = []
        for try await (key, value) in rows.decode((String, String).self) {
            list.append(SymptomText(key: key, value: value))
        }
        return list
    }

    /// `GET /api/v1/countries?country=XX`: every supported country, or the one asked for.
    func countries(_ input: CountriesQuery, context: CallContext) async throws -> PlaceNames {
        try await list(table: "countries", requested: input.country, code: input.country?.uppercased(), context: context)
    }

    /// `GET /api/v1/languages?language=xx`: every supported language, or the one asked for.
    func languages(_ input: LanguagesQuery, context: CallContext) async throws -> PlaceNames {
        try await list(table: "languages", requested: input.language, code: input.language?.lowercased(), context: context)
    }

    private func list(table: String, requested: String?, code: String?, context: CallContext) async throws -> PlaceNames {
        let rows = try await database.query(
            PostgresQuery(
                unsafeSQL: "SELECT alpha2, name FROM statistics.\(table) WHERE active AND ($1::text IS NULL OR alpha2 = $1) ORDER BY alpha2",
                binds: {
                    var binds = PostgresBindings(); binds.append(code); return binds
                }()),
            logger: context.logger)
        var items: [PlaceName] = []
        for try await (alpha2, name) in rows.decode((String, String).self) {
            items.append(PlaceName(alpha2: alpha2, name: name))
        }
        guard let requested else { return .all(items) }
        guard let item = items.first else {
            throw RPCError.badRequest("Invalid alpha2 code '\(Alpha2.clip(requested))': not supported", reason: "invalid_alpha2")
        }
        return .one(item)
    }

    private func exists(_ sql: String, _ value: String, logger: Logger) async throws -> Bool {
        var binds = PostgresBindings()
        binds.append(value)
        for try await _ in try await database.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger).decode(Int.self) {
            return true
        }
        return false
    }

    // MARK: Admin routes

    /// `GET /admin/v1/statistics/countries` and `…/languages`: all of them, inactive ones too.
    func adminList(_ table: Table, context: CallContext) async throws -> [Place] {
        let rows = try await database.query(
            PostgresQuery(unsafeSQL: "SELECT alpha2, name, active FROM statistics.\(table.rawValue) ORDER BY alpha2"), logger: context.logger)
        var places: [Place] = []
        for try await (alpha2, name, active) in rows.decode((String, String, Bool).self) {
            places.append(Place(alpha2: alpha2, name: name, active: active))
        }
        return places
    }

    enum Table: String, Sendable {
        case countries, languages
    }

    /// `PUT /admin/v1/statistics/countries/{alpha2}` and `…/languages/{alpha2}`: adds or renames one, and
    /// (de)activates it with `active`.
    func adminUpsert(_ table: Table, _ input: PlaceUpsert, context: CallContext) async throws -> Place {
        let code = table == .countries ? input.alpha2.uppercased() : input.alpha2.lowercased()
        let name = input.name
        var binds = PostgresBindings()
        binds.append(code)
        binds.append(name)
        binds.append(input.active)
        let rows = try await database.query(
            PostgresQuery(
                unsafeSQL: """
                    INSERT INTO statistics.\(table.rawValue) (alpha2, name, active) VALUES ($1, $2, COALESCE($3::boolean, true))
                    ON CONFLICT (alpha2) DO UPDATE SET name = EXCLUDED.name,
                        active = COALESCE($3::boolean, statistics.\(table.rawValue).active), updated_at = now()
                    RETURNING alpha2, name, active
                    """, binds: binds), logger: context.logger)
        for try await (alpha2, name, active) in rows.decode((String, String, Bool).self) {
            context.logger.notice("statistics reference data changed", metadata: ["table": .string(table.rawValue), "alpha2": .string(alpha2)])
            return Place(alpha2: alpha2, name: name, active: active)
        }
        throw RPCError.internal("the \(table.rawValue) row was not stored")
    }

    /// `GET /admin/v1/statistics/symptoms`: every symptom with all its translations.
    func adminSymptoms(context: CallContext) async throws -> SymptomList {
        SymptomList(symptoms: try await symptoms(key: nil, logger: context.logger))
    }

    private func symptoms(key: String?, logger: Logger) async throws -> [Symptom] {
        let rows = try await database.query(
            """
            SELECT s.key, s.position, s.active, t.language, t.value
            FROM statistics.symptoms s LEFT JOIN statistics.symptom_translations t ON t.symptom_key = s.key
            WHERE \(key)::text IS NULL OR s.key = \(key)
            ORDER BY s.position, s.key, t.language
            """, logger: logger)
        var symptoms: [Symptom] = []
        for try await (key, position, active, language, value) in rows.decode((String, Int, Bool, String?, String?).self) {
            if symptoms.last?.key != key {
                symptoms.append(Symptom(key: key, position: position, active: active, translations: [:]))
            }
            if let language, let value { symptoms[symptoms.count - 1].translations[language] = value }
        }
        return symptoms
    }

    /// `PUT /admin/v1/statistics/symptoms/{key}`: adds a symptom (with at least its English text) or changes
    /// its translations (the languages given are replaced, others kept), position or `active`.
    func adminUpsertSymptom(_ input: SymptomUpsert, context: CallContext) async throws -> Symptom {
        let translations = input.translations.map { ($0.language, $0.text) }
        let languages = Set(try await column("SELECT alpha2 FROM statistics.languages", logger: context.logger))
        if let unknown = translations.first(where: { !languages.contains($0.0) }) {
            throw RPCError.badRequest(
                "language '\(unknown.0)' is not registered (PUT /admin/v1/statistics/languages/\(unknown.0) first)", reason: "unknown_language")
        }
        let logger = context.logger
        let key = input.key
        let position = input.position
        let active = input.active
        let stored = translations
        try await database.withTransaction(logger: logger) { connection in
            var existing = false
            for try await _ in try await connection.query("SELECT 1 FROM statistics.symptoms WHERE key = \(key) FOR UPDATE", logger: logger).decode(
                Int.self)
            {
                existing = true
            }
            if existing {
                try await connection.query(
                    """
                    UPDATE statistics.symptoms SET position = COALESCE(\(position), position), active = COALESCE(\(active), active),
                        updated_at = now() WHERE key = \(key)
                    """, logger: logger)
            } else {
                guard stored.contains(where: { $0.0 == Self.defaultLanguage }) else {
                    throw RPCError.badRequest("a new symptom needs its English text (translations.en)", reason: "missing_translation")
                }
                try await connection.query(
                    """
                    INSERT INTO statistics.symptoms (key, position, active)
                    VALUES (\(key), COALESCE(\(position), (SELECT COALESCE(max(position), 0) + 1 FROM statistics.symptoms)), COALESCE(\(active), true))
                    """, logger: logger)
            }
            for (language, value) in stored {
                try await connection.query(
                    """
                    INSERT INTO statistics.symptom_translations (symptom_key, language, value) VALUES (\(key), \(language), \(value))
                    ON CONFLICT (symptom_key, language) DO UPDATE SET value = EXCLUDED.value
                    """, logger: logger)
            }
        }
        context.logger.notice("symptom changed", metadata: ["key": .string(key)])
        guard let symptom = try await symptoms(key: key, logger: logger).first else { throw RPCError.internal("the symptom was not stored") }
        return symptom
    }

    /// `DELETE /admin/v1/statistics/symptoms/{key}`: no longer offered nor accepted; submissions that name it keep it.
    func adminDeactivateSymptom(_ input: SymptomPath, context: CallContext) async throws -> Symptom {
        let key = input.key
        try await database.query("UPDATE statistics.symptoms SET active = false, updated_at = now() WHERE key = \(key)", logger: context.logger)
        guard let symptom = try await symptoms(key: key, logger: context.logger).first else {
            throw RPCError.notFound("no symptom '\(Alpha2.clip(key))'", reason: "unknown_symptom")
        }
        context.logger.notice("symptom deactivated", metadata: ["key": .string(key)])
        return symptom
    }
}
