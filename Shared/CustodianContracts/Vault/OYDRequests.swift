import CustodianHTTP
import CustodianJSON
import CustodianRPC

/// `/api/repos/{identifier}/…`: the repo a request names. The identifier is checked by the vault once it knows the
/// caller (`Repos.validIdentifier`), as it always was.
public struct RepoRequest: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var identifier: String

    public init(identifier: String) {
        self.identifier = identifier
    }

    public init(from decoder: any Decoder) throws {
        identifier = try RequestReader(decoder).path("identifier")
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["identifier": identifier]).encode(to: encoder)
    }
}

/// `POST /api/repos/{identifier}/items`: one record (an object) or a batch (an array). The records are the app's own
/// JSON, stored as they are; each is checked here, and one that is refused is answered beside the others.
public struct ItemsWrite: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public static let maximumBatch = 1000
    public static let maximumRecordBytes = 64 * 1024

    public var identifier: String
    public var records: [VaultRecord]
    /// The body was an array: the answer lists each record's.
    public var isBatch: Bool

    public init(identifier: String, records: [JSONValue], isBatch: Bool) {
        self.identifier = identifier
        self.records = records.map(VaultRecord.init)
        self.isBatch = isBatch
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        let records: [JSONValue]
        switch try request.body(JSONValue.self) {
        case .object(let fields): (records, isBatch) = ([.object(fields)], false)
        case .array(let items): (records, isBatch) = (items, true)
        default: throw RPCError.badRequest("The body must be a JSON record or an array of records", reason: "invalid_request")
        }
        guard records.count <= Self.maximumBatch else {
            throw RPCError(.payloadTooLarge, reason: "batch_too_large", message: "A batch may hold at most \(Self.maximumBatch) records")
        }
        guard !records.isEmpty else { throw RPCError.badRequest("The batch is empty", reason: "invalid_request") }
        identifier = try request.path("identifier")
        self.records = records.map(VaultRecord.init)
    }

    public func encode(to encoder: any Encoder) throws {
        let values = records.map(\.value)
        try HTTPInput(body: isBatch ? .array(values) : values[0], path: ["identifier": identifier]).encode(to: encoder)
    }
}

/// One record of a write, checked: ready to store, or refused with the reason the answer gives for it.
public struct VaultRecord: Sendable, Equatable {
    /// The record as it came.
    public var value: JSONValue
    /// Its JSON text and, for an encrypted record, its nonce (lowercase); or why it is refused.
    public var checked: Result<Storable, Refusal>

    public struct Storable: Sendable, Equatable {
        public var text: String
        public var nonce: String?
    }

    public struct Refusal: Error, Sendable, Equatable {
        public var message: String
    }

    init(_ value: JSONValue) {
        self.value = value
        checked = Result { () throws(Refusal) in try Self.check(value) }
    }

    private static func check(_ record: JSONValue) throws(Refusal) -> Storable {
        guard case .object(let fields) = record else { throw Refusal(message: "A record must be a JSON object") }
        let text = String(decoding: record.jsonBytes, as: UTF8.self)
        guard text.utf8.count <= ItemsWrite.maximumRecordBytes else {
            throw Refusal(message: "A record may have at most \(ItemsWrite.maximumRecordBytes) bytes")
        }
        var nonce: String?
        if fields["version"] == .string("0.4") {
            guard let value = fields["value"]?.stringValue, !value.isEmpty, isHex(value) else {
                throw Refusal(message: "An encrypted record (version 0.4) needs a hexadecimal value")
            }
            guard let given = fields["nonce"]?.stringValue, given.utf8.count == 48, isHex(given) else {
                throw Refusal(message: "An encrypted record (version 0.4) needs a nonce of 48 hexadecimal characters")
            }
            nonce = given.lowercased()
        }
        return Storable(text: text, nonce: nonce)
    }

    /// Whether the text is bytes in hexadecimal (an even number of ASCII hex digits), without decoding them.
    static func isHex(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard bytes.count % 2 == 0 else { return false }
            // A table look-up and one branch for the whole text: records are hundreds of digits each, a batch a thousand
            // records (a range test per digit was a tenth of the vault's time on a batch).
            var invalid: UInt8 = 0
            hexDigitTable.withUnsafeBufferPointer { table in
                for byte in bytes { invalid |= table[Int(byte)] }
            }
            return invalid == 0
        }
    }

    /// 0 for the bytes of hexadecimal digits, 1 for every other byte.
    private static let hexDigitTable: [UInt8] = (0...255).map { byte in
        switch UInt8(byte) {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): 0
        default: 1
        }
    }
}

/// `?page=&size=&last=&last_days=` of an items read: a page of `size` records, of the `last` ones or those of the last
/// days. A repeated parameter's first value counts.
public struct ItemsPaging: Sendable, Equatable {
    public var page: Int
    public var size: Int
    public var last: Int?
    public var lastDays: Int?

    public init(page: Int = 1, size: Int = 100, last: Int? = nil, lastDays: Int? = nil) {
        self.page = page
        self.size = size
        self.last = last
        self.lastDays = lastDays
    }

    init(_ request: RequestReader) throws {
        func number(_ name: String, _ range: ClosedRange<Int>) throws -> Int? {
            guard let text = try request.firstQuery(name) else { return nil }
            guard let value = Int(text), range.contains(value) else {
                throw RPCError.badRequest("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound)", reason: "invalid_request")
            }
            return value
        }
        self.init(
            page: try number("page", 1...1_000_000) ?? 1, size: try number("size", 1...1000) ?? 100,
            last: try number("last", 1...100_000), lastDays: try number("last_days", 1...36500))
    }

    var query: [String: [String]] {
        var query = ["page": [String(page)], "size": [String(size)]]
        query["last"] = last.map { [String($0)] }
        query["last_days"] = lastDays.map { [String($0)] }
        return query
    }
}

/// `GET /api/repos/{identifier}/items?page=&size=&last=&last_days=`. The paging is checked once the repo is found.
public struct ItemsRead: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var identifier: String
    public var paging: Deferred<ItemsPaging>

    public init(identifier: String, paging: ItemsPaging = ItemsPaging()) {
        self.identifier = identifier
        self.paging = Deferred(paging)
    }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        identifier = try request.path("identifier")
        paging = try Deferred(Self.decoding) { try ItemsPaging(request) }
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["identifier": identifier], query: paging.value?.query ?? [:]).encode(to: encoder)
    }
}

/// `POST /api/repos/{identifier}/items/decrypted {"password"}`: the owner's password, read first; the repo and the
/// paging are checked after it, as for a read.
public struct ItemsDecryption: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    public var password: String
    public var identifier: String
    public var paging: Deferred<ItemsPaging>

    public init(password: String, identifier: String, paging: ItemsPaging = ItemsPaging()) {
        self.password = password
        self.identifier = identifier
        self.paging = Deferred(paging)
    }

    enum CodingKeys: String, CodingKey { case password }

    public init(from decoder: any Decoder) throws {
        let request = try RequestReader(decoder)
        password = try request.body(keyedBy: CodingKeys.self).decode(String.self, forKey: .password)
        identifier = try request.path("identifier")
        paging = try Deferred(Self.decoding) { try ItemsPaging(request) }
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(body: ["password": .string(password)], path: ["identifier": identifier], query: paging.value?.query ?? [:])
            .encode(to: encoder)
    }
}

/// One record of a decrypted read: its content in clear (or as stored, when it was not encrypted), or why it did not open.
public struct DecryptedItem: RoutedJSON, Equatable {
    public var id: Int64
    public var data: JSONValue?
    public var error: String?

    public init(id: Int64, data: JSONValue) {
        self.id = id
        self.data = data
    }

    public init(id: Int64, error: String) {
        self.id = id
        self.error = error
    }
}

/// `GET /api/repos/{identifier}/pub_key`: what a writer encrypts for.
public struct RepoPublicKey: RoutedJSON, Equatable {
    public var id: Int64
    public var identifier: String
    /// Hexadecimal.
    public var public_key: String

    public init(id: Int64, identifier: String, public_key: String) {
        self.id = id
        self.identifier = identifier
        self.public_key = public_key
    }
}

/// `GET /api/modules/index`: one of the user's modules, with what the app needs to open it.
public struct ModuleEntry: RoutedJSON, Equatable {
    public var id: Int64
    public var name: String
    public var description: String
    public var url: String
    public var uid: String
    public var secret: String
    public var picture: String
    /// "Behavior of the Module list" 4: `[MODULE_URL]?PIA_URL=…&APP_KEY=…&APP_SECRET=…`.
    public var launch_url: String

    public init(id: Int64, name: String, description: String, url: String, uid: String, secret: String, picture: String, launch_url: String) {
        self.id = id
        self.name = name
        self.description = description
        self.url = url
        self.uid = uid
        self.secret = secret
        self.picture = picture
        self.launch_url = launch_url
    }
}

/// `DELETE /api/items/{id}`: the data owner deletes one record, as pia2 (OwnYourData's own vault) offers; a module may
/// delete from a repo it may write to. An id that is not a number names no record.
public struct ItemDeletion: RoutedInput, Equatable {
    public static var decoding: RequestDecoding { .fastAPI }

    /// The path as given, for the answer's wording.
    public var id: String

    public init(id: String) {
        self.id = id
    }

    public init(from decoder: any Decoder) throws {
        id = try RequestReader(decoder).path("id")
    }

    public func encode(to encoder: any Encoder) throws {
        try HTTPInput(path: ["id": id]).encode(to: encoder)
    }
}

/// The deleted record's id, as a write answers it.
public struct DeletedItem: RoutedJSON, Equatable {
    public var id: Int64

    public init(id: Int64) {
        self.id = id
    }
}
