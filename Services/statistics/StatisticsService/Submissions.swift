import Crypto
import CustodianContracts
import CustodianHTTP
import CustodianJSON
import CustodianRPC
import CustodianRuntime
import Foundation
import Logging
import PostgresNIO

/// Survey submissions: stored once per device and distinct body, forgotten with the device, counted and
/// exported for researchers without any device identifier.
public struct Submissions: Sendable {
    let database: Database
    /// The researcher export reads here (a read-only replica when one is configured).
    let exportDatabase: Database
    let reference: ReferenceData

    public init(database: Database, exportDatabase: Database? = nil, reference: ReferenceData) {
        self.database = database
        self.exportDatabase = exportDatabase ?? database
        self.reference = reference
    }

    static func deviceDigest(_ deviceID: String) -> Data { Data(SHA256.hash(data: Data(deviceID.utf8))) }

    /// `POST /api/v1/submission/covid` → 201 with `data: null`; a retry (same device, same canonical body)
    /// finds the first row and answers the same.
    func create(_ input: SubmissionRequest, context: CallContext) async throws -> LemonNoData {
        let deviceID = try Access.appID(context)
        let sets = try await reference.sets(logger: context.logger)
        let submission = try SubmissionParser.parse(input, reference: sets)
        let device = Self.deviceDigest(deviceID)
        let digest = submission.digest
        let symptoms = submission.symptoms ?? []
        // As text: PostgresNIO truncates a Date's microseconds, which a Double may hold as …999.
        let positive = submission.positiveTestDate.map { LemonDate.format($0) }
        let negative = submission.negativeTestDate.map { LemonDate.format($0) }
        let rows = try await database.query(
            """
            INSERT INTO statistics.submissions (device_sha256, body_sha256, status, positive_test_date, negative_test_date,
                country, language, age, is_symptomatic, symptoms)
            VALUES (\(device), \(digest), \(submission.status?.rawValue),
                \(positive)::timestamp AT TIME ZONE 'UTC', \(negative)::timestamp AT TIME ZONE 'UTC',
                \(submission.country), \(submission.language), \(submission.age), \(submission.isSymptomatic), \(symptoms))
            ON CONFLICT (device_sha256, body_sha256) DO NOTHING
            RETURNING id
            """, logger: context.logger)
        var stored = false
        for try await _ in rows.decode(Int64.self) { stored = true }
        context.logger.info(stored ? "submission stored" : "submission retried", metadata: ["status": .string(submission.status?.rawValue ?? "-")])
        return LemonNoData()
    }

    /// `statistics.device.forget` (no route; `auth` calls it when an app deletes itself): removes every
    /// submission of the device. Idempotent.
    func forget(_ input: ForgetDeviceInput, context: CallContext) async throws -> ForgottenSubmissions {
        guard !input.deviceId.isEmpty, input.deviceId.utf8.count <= 1024 else {
            throw RPCError.badRequest("deviceId must be 1 to 1024 bytes", reason: "invalid_device_id")
        }
        let device = Self.deviceDigest(input.deviceId)
        var deleted = 0
        for try await _ in try await database.query(
            "DELETE FROM statistics.submissions WHERE device_sha256 = \(device) RETURNING id", logger: context.logger
        ).decode(Int64.self) {
            deleted += 1
        }
        try await database.query("DELETE FROM statistics.synthetic_devices WHERE device_sha256 = \(device)", logger: context.logger)
        context.logger.notice("device's submissions forgotten", metadata: ["deleted": .stringConvertible(deleted)])
        return ForgottenSubmissions(deleted: deleted)
    }

    /// `statistics.device.markSynthetic` (no route; `auth` calls it when it registers a synthetic app instance): the
    /// device's submissions are left out of the researchers' counts and export unless asked for. Idempotent.
    func markSynthetic(_ input: ForgetDeviceInput, context: CallContext) async throws -> Empty {
        guard !input.deviceId.isEmpty, input.deviceId.utf8.count <= 1024 else {
            throw RPCError.badRequest("deviceId must be 1 to 1024 bytes", reason: "invalid_device_id")
        }
        try await database.query(
            "INSERT INTO statistics.synthetic_devices (device_sha256) VALUES (\(Self.deviceDigest(input.deviceId))) ON CONFLICT DO NOTHING",
            logger: context.logger)
        return Empty()
    }

    /// The condition on a submission `s` that ``SyntheticFilter`` asks for: fixed SQL, one of three.
    static func synthetic(_ filter: SyntheticFilter) -> String {
        let marked = "EXISTS (SELECT 1 FROM statistics.synthetic_devices y WHERE y.device_sha256 = s.device_sha256)"
        return switch filter {
        case .exclude: "NOT " + marked
        case .include: "true"
        case .only: marked
        }
    }

    // MARK: Researchers

    /// `GET /admin/v1/statistics/submissions/counts[?from=&to=]`: submissions by status, country and ISO week.
    func counts(_ input: SubmissionRange, context: CallContext) async throws -> SubmissionCounts {
        let (from, to) = (input.from, input.to)
        let rows = try await database.query(
            """
            SELECT status, country, to_char(submitted_at AT TIME ZONE 'UTC', 'IYYY-"W"IW') AS week, count(*)
            FROM statistics.submissions s
            WHERE (\(from)::timestamptz IS NULL OR submitted_at >= \(from)) AND (\(to)::timestamptz IS NULL OR submitted_at < \(to))
              AND \(unescaped: Self.synthetic(input.synthetic))
            GROUP BY 1, 2, 3 ORDER BY 3, 1 NULLS LAST, 2 NULLS LAST
            """, logger: context.logger)
        var counts: [SubmissionCounts.Count] = []
        for try await (status, country, week, count) in rows.decode((String?, String?, String, Int64).self) {
            counts.append(SubmissionCounts.Count(status: status, country: country, week: week, count: Int(count)))
        }
        return SubmissionCounts(counts: counts)
    }

    static let pageSize = ResearcherExport.pageSize
    static let columns = [
        "submitted_on", "status", "country", "language", "age", "is_symptomatic", "symptoms", "positive_test_date", "negative_test_date",
    ]

    /// `GET /admin/v1/statistics/submissions?format=csv|ndjson[&from=&to=]`, streamed a page at a time. No
    /// device identifier, and only the day of submission.
    func export(_ input: SubmissionExportQuery, context: CallContext) async throws -> StreamPage {
        let format = input.format
        let (from, to) = (input.range.from, input.range.to)
        let after = input.after ?? 0
        let rows = try await exportDatabase.query(
            """
            SELECT id, to_char(submitted_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'), status, country, language, age, is_symptomatic, symptoms,
                positive_test_date, negative_test_date
            FROM statistics.submissions s
            WHERE id > \(after)
              AND (\(from)::timestamptz IS NULL OR submitted_at >= \(from)) AND (\(to)::timestamptz IS NULL OR submitted_at < \(to))
              AND \(unescaped: Self.synthetic(input.range.synthetic))
            ORDER BY id LIMIT \(Self.pageSize)
            """, logger: context.logger)
        var chunk = input.after == nil && format == .csv ? ResearcherExport.csvLine(Self.columns) : ""
        var last: Int64?
        var count = 0
        for try await (id, day, status, country, language, age, symptomatic, symptoms, positive, negative)
            in rows.decode((Int64, String, String?, String?, String?, Int?, Bool?, [String], Date?, Date?).self)
        {
            count += 1
            last = id
            let positiveText = positive.map { LemonDate.format($0) }
            let negativeText = negative.map { LemonDate.format($0) }
            if format == .csv {
                chunk += ResearcherExport.csvLine([
                    day, status, country, language, age.map(String.init), symptomatic.map(String.init),
                    symptoms.joined(separator: ";"), positiveText, negativeText,
                ])
            } else {
                func value(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
                let object: [String: JSONValue] = [
                    "submitted_on": .string(day), "status": value(status), "country": value(country), "language": value(language),
                    "age": age.map { .int(Int64($0)) } ?? .null, "is_symptomatic": symptomatic.map { .bool($0) } ?? .null,
                    "symptoms": .array(symptoms.map { .string($0) }),
                    "positive_test_date": value(positiveText), "negative_test_date": value(negativeText),
                ]
                chunk += try ResearcherExport.ndjsonLine(object)
            }
        }
        return StreamPage(
            headers: input.after == nil ? ResearcherExport.headers(format, name: "submissions") : nil,
            chunk: chunk, next: count == Self.pageSize ? last.map(String.init) : nil)
    }
}
