import Foundation

/// Reads `Decodable` values from a parsed ``JSONValue`` tree: the one way typed values are read from JSON text here (a
/// frame's input or result). The text is parsed once, by ``JSONValue/parse(_:maximumDepth:)-(UnsafeRawBufferPointer,_)``;
/// this walks the tree, asking a ``JSONValueReadable`` type to read itself first.
///
/// It reads what `JSONDecoder` with its default strategies reads from the same text (`Data` as base64, `URL` as its
/// string, `Date` as seconds since 2001), and its errors are the `DecodingError`s `JSONDecoder` throws, with the same
/// kinds, types and paths, so that ``describe(_:in:)`` words them alike. One difference: a number that fits no field of
/// its type (`1.5` or `1e20` for an `Int`, `300` for an `Int8`) is a type mismatch at its member, where Foundation
/// reports corrupt data without a path.
public struct JSONValueDecoder: Sendable {
    public init() {}

    /// `codingPath`: where `value` sits in a larger document (`params.input`), for the errors' paths.
    public func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, codingPath: @autoclosure () -> [any CodingKey] = []) throws -> T {
        // A value the tree holds as it is, or a type that reads itself, needs no decoder.
        if let read = Self.read(T.self, from: value) { return read }
        return try Self.decodeThroughDecoder(T.self, from: value, codingPath: codingPath())
    }

    /// How values of `T` are read, settled once for a method's input, which is read on every call. Code that knows `T`
    /// gives its reader as a closure (``init(reader:)``): called directly, it costs nothing beside the reader, where
    /// reaching it through the protocol from generic code costs about 0.08 µs a call, a fifth of reading an `HTTPInput`.
    ///
    /// Unchecked: a reader is a type's `init?(json:)`, and holds nothing that changes.
    public struct Reading<T: Decodable>: @unchecked Sendable {
        /// The tree itself for a ``JSONValue``, the type's own reader for a ``JSONValueReadable``, else nil.
        private let shortcut: ((JSONValue) -> T?)?

        public init(_ type: T.Type = T.self) {
            if T.self == JSONValue.self {
                shortcut = { unsafeBitCast($0, to: T.self) }
            } else if let readable = T.self as? any JSONValueReadable.Type {
                shortcut = JSONValueDecoder.reader(readable, as: T.self)
            } else {
                shortcut = nil
            }
        }

        /// `reader`: the type's ``JSONValueReadable/init(json:)``, called where `T` is known.
        public init(reader: @escaping (JSONValue) -> T?) {
            shortcut = reader
        }

        /// What ``JSONValueDecoder/decode(_:from:codingPath:)`` reads.
        public func decode(from value: JSONValue, codingPath: @autoclosure () -> [any CodingKey] = []) throws -> T {
            if let shortcut, let read = shortcut(value) { return read }
            return try JSONValueDecoder.decodeThroughDecoder(T.self, from: value, codingPath: codingPath())
        }
    }

    /// `value` itself when `T` is ``JSONValue``, or what a ``JSONValueReadable`` `T` reads from it.
    static func read<T>(_ type: T.Type, from value: JSONValue) -> T? {
        if T.self == JSONValue.self { return unsafeBitCast(value, to: T.self) }
        guard let readable = T.self as? any JSONValueReadable.Type else { return nil }
        return read(readable, from: value, as: T.self)
    }

    /// Opened, so that the value read is never boxed in an existential on its way to `T`, which is the same type.
    private static func read<Readable: JSONValueReadable, T>(_ readable: Readable.Type, from value: JSONValue, as type: T.Type) -> T? {
        guard let read = Readable(json: value) else { return nil }
        return unsafeBitCast(read, to: T.self)
    }

    private static func reader<Readable: JSONValueReadable, T>(_ readable: Readable.Type, as type: T.Type) -> (JSONValue) -> T? {
        { value in read(Readable.self, from: value, as: T.self) }
    }

    /// `T` through its `init(from:)` (or as `JSONDecoder` reads `Data` and `URL`), for a value no shortcut read.
    private static func decodeThroughDecoder<T: Decodable>(_ type: T.Type, from value: JSONValue, codingPath: [any CodingKey]) throws -> T {
        let path = CodingPath.root(codingPath)
        return try TreeDecoder(value: value, path: path).decodeThroughDecoder(T.self, from: value, at: path)
    }
}

/// A decoding path, built as the decoder goes down and turned into keys only when asked (for an error, mostly).
enum CodingPath {
    case root([any CodingKey])
    indirect case member(any CodingKey, of: CodingPath)

    var keys: [any CodingKey] {
        switch self {
        case .root(let keys): keys
        case .member(let key, let parent): parent.keys + [key]
        }
    }

    func appending(_ key: any CodingKey) -> CodingPath { .member(key, of: self) }
}

/// An array element's place in a path, named as `JSONDecoder` names it.
struct IndexKey: CodingKey {
    var intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }

    init(_ index: Int) { intValue = index }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { self.intValue = intValue }
}

/// One decoder for a whole tree: decoding a member points it at the member and back (as `JSONDecoder`'s does), so that
/// only containers and nested paths cost an allocation.
final class TreeDecoder: Decoder, SingleValueDecodingContainer {
    private(set) var value: JSONValue
    private(set) var path: CodingPath

    init(value: JSONValue, path: CodingPath) {
        self.value = value
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// `T` from `value`, found at `path`.
    func decode<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: @autoclosure () -> CodingPath) throws -> T {
        if let read = JSONValueDecoder.read(T.self, from: value) { return read }
        return try decodeThroughDecoder(T.self, from: value, at: path())
    }

    func decodeThroughDecoder<T: Decodable>(_ type: T.Type, from value: JSONValue, at path: @autoclosure () -> CodingPath) throws -> T {
        if T.self == Data.self {
            let text = try string(value, at: path())
            guard let data = Data(base64Encoded: text) else { throw Self.corrupted(path(), "Encountered Data is not valid Base64.") }
            return data as! T
        }
        if T.self == URL.self {
            guard let url = URL(string: try string(value, at: path())) else { throw Self.corrupted(path(), "Invalid URL string.") }
            return url as! T
        }
        let outer = (self.value, self.path)
        self.value = value
        self.path = path()
        defer { (self.value, self.path) = outer }
        return try T(from: self)
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        KeyedDecodingContainer(KeyedContainer<Key>(decoder: self, fields: try Self.object(value, at: path), path: path))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        UnkeyedContainer(decoder: self, items: try Self.array(value, at: path), path: path)
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer { self }

    // MARK: The single value this decoder points at

    func decodeNil() -> Bool { value == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try bool(value, at: path) }
    func decode(_ type: String.Type) throws -> String { try string(value, at: path) }
    func decode(_ type: Double.Type) throws -> Double { try floatingPoint(value, at: path) }
    func decode(_ type: Float.Type) throws -> Float { try floatingPoint(value, at: path) }
    func decode(_ type: Int.Type) throws -> Int { try integer(value, at: path) }
    func decode(_ type: Int8.Type) throws -> Int8 { try integer(value, at: path) }
    func decode(_ type: Int16.Type) throws -> Int16 { try integer(value, at: path) }
    func decode(_ type: Int32.Type) throws -> Int32 { try integer(value, at: path) }
    func decode(_ type: Int64.Type) throws -> Int64 { try integer(value, at: path) }
    func decode(_ type: UInt.Type) throws -> UInt { try integer(value, at: path) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try integer(value, at: path) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try integer(value, at: path) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try integer(value, at: path) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try integer(value, at: path) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decode(T.self, from: value, at: path) }

    // MARK: Values, with `JSONDecoder`'s errors

    func bool(_ value: JSONValue, at path: @autoclosure () -> CodingPath) throws -> Bool {
        guard case .bool(let bool) = value else {
            // `JSONDecoder` calls a null where a Bool belongs a type mismatch, unlike a null anywhere else.
            guard value != .null else {
                throw DecodingError.typeMismatch(
                    Bool.self, .init(codingPath: path().keys, debugDescription: "Expected to decode Bool but found null instead."))
            }
            throw Self.mismatch(Bool.self, value, at: path())
        }
        return bool
    }

    func string(_ value: JSONValue, at path: @autoclosure () -> CodingPath) throws -> String {
        guard case .string(let text) = value else { throw Self.mismatch(String.self, value, at: path()) }
        return text
    }

    func integer<T: FixedWidthInteger>(_ value: JSONValue, at path: @autoclosure () -> CodingPath) throws -> T {
        switch value {
        case .int(let number):
            if let fitting = T(exactly: number) { return fitting }
        case .double(let number):
            // Only a tree made in code holds an integral double: the parser reads `5.0` as `.int`.
            if let fitting = T(exactly: number) { return fitting }
        default:
            throw Self.mismatch(T.self, value, at: path())
        }
        throw DecodingError.typeMismatch(T.self, .init(codingPath: path().keys, debugDescription: "Number \(value) does not fit in \(T.self)."))
    }

    func floatingPoint<T: BinaryFloatingPoint>(_ value: JSONValue, at path: @autoclosure () -> CodingPath) throws -> T {
        let number: Double
        switch value {
        case .int(let integer): number = Double(integer)
        case .double(let double): number = double
        default: throw Self.mismatch(T.self, value, at: path())
        }
        let converted = T(number)
        guard converted.isFinite else {
            throw DecodingError.typeMismatch(T.self, .init(codingPath: path().keys, debugDescription: "Number \(value) does not fit in \(T.self)."))
        }
        return converted
    }

    static func object(_ value: JSONValue, at path: CodingPath) throws -> [String: JSONValue] {
        switch value {
        case .object(let fields): return fields
        case .null:
            throw DecodingError.valueNotFound(
                [String: Any].self,
                .init(
                    codingPath: path.keys, debugDescription: "Cannot get keyed decoding container -- found null value instead"))
        default: throw mismatch([String: Any].self, value, at: path)
        }
    }

    static func array(_ value: JSONValue, at path: CodingPath) throws -> [JSONValue] {
        switch value {
        case .array(let items): return items
        case .null:
            throw DecodingError.valueNotFound(
                [Any].self,
                .init(
                    codingPath: path.keys, debugDescription: "Cannot get unkeyed decoding container -- found null value instead"))
        default: throw mismatch([Any].self, value, at: path)
        }
    }

    static func mismatch(_ type: Any.Type, _ value: JSONValue, at path: CodingPath) -> DecodingError {
        if value == .null {
            return DecodingError.valueNotFound(
                type, .init(codingPath: path.keys, debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
        let found =
            switch value {
            case .null: "null"
            case .bool: "bool"
            case .int, .double: "number"
            case .string: "a string"
            case .array: "an array"
            case .object: "a dictionary"
            }
        return DecodingError.typeMismatch(
            type, .init(codingPath: path.keys, debugDescription: "Expected to decode \(type) but found \(found) instead."))
    }

    static func corrupted(_ path: CodingPath, _ description: String) -> DecodingError {
        DecodingError.dataCorrupted(.init(codingPath: path.keys, debugDescription: description))
    }
}

/// An object's members.
struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: TreeDecoder
    let fields: [String: JSONValue]
    let path: CodingPath

    var codingPath: [any CodingKey] { path.keys }
    var allKeys: [Key] { fields.keys.compactMap { Key(stringValue: $0) } }

    func contains(_ key: Key) -> Bool { fields[key.stringValue] != nil }

    private func member(_ key: Key) throws -> JSONValue {
        guard let value = fields[key.stringValue] else {
            throw DecodingError.keyNotFound(
                key,
                .init(
                    codingPath: path.keys, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return value
    }

    /// The member, or nil when it is absent or `null`.
    private func presentMember(_ key: Key) -> JSONValue? {
        guard let value = fields[key.stringValue], value != .null else { return nil }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { try member(key) == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try decoder.bool(member(key), at: path.appending(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try decoder.string(member(key), at: path.appending(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try decoder.floatingPoint(member(key), at: path.appending(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try decoder.floatingPoint(member(key), at: path.appending(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try decoder.integer(member(key), at: path.appending(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try decoder.integer(member(key), at: path.appending(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try decoder.integer(member(key), at: path.appending(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try decoder.integer(member(key), at: path.appending(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try decoder.integer(member(key), at: path.appending(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try decoder.integer(member(key), at: path.appending(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try decoder.integer(member(key), at: path.appending(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try decoder.integer(member(key), at: path.appending(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try decoder.integer(member(key), at: path.appending(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try decoder.integer(member(key), at: path.appending(key)) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(T.self, from: member(key), at: path.appending(key))
    }

    // An absent or null member is nil, as `JSONDecoder` reads it, with one look-up instead of three.
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try presentMember(key).map { try decoder.bool($0, at: path.appending(key)) }
    }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try presentMember(key).map { try decoder.string($0, at: path.appending(key)) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try presentMember(key).map { try decoder.floatingPoint($0, at: path.appending(key)) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try presentMember(key).map { try decoder.integer($0, at: path.appending(key)) }
    }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? {
        try presentMember(key).map { try decoder.integer($0, at: path.appending(key)) }
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try presentMember(key).map { try decoder.decode(T.self, from: $0, at: path.appending(key)) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        let nested = path.appending(key)
        return KeyedDecodingContainer(
            KeyedContainer<NestedKey>(decoder: decoder, fields: try TreeDecoder.object(member(key), at: nested), path: nested))
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let nested = path.appending(key)
        return UnkeyedContainer(decoder: decoder, items: try TreeDecoder.array(member(key), at: nested), path: nested)
    }

    func superDecoder() throws -> any Decoder {
        TreeDecoder(value: fields["super"] ?? .null, path: path.appending(SuperKey()))
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        TreeDecoder(value: fields[key.stringValue] ?? .null, path: path.appending(key))
    }
}

/// `super`, the key of `superDecoder()` and `superEncoder()`.
struct SuperKey: CodingKey {
    var stringValue: String { "super" }
    var intValue: Int? { nil }
    init() {}
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }
}

/// An array's items, in order.
struct UnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: TreeDecoder
    let items: [JSONValue]
    let path: CodingPath
    private(set) var currentIndex = 0

    init(decoder: TreeDecoder, items: [JSONValue], path: CodingPath) {
        self.decoder = decoder
        self.items = items
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }
    var count: Int? { items.count }
    var isAtEnd: Bool { currentIndex >= items.count }

    private var itemPath: CodingPath { path.appending(IndexKey(currentIndex)) }

    /// The next item; the index moves on once it was read.
    private func current(_ type: Any.Type) throws -> JSONValue {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(type, .init(codingPath: itemPath.keys, debugDescription: "Unkeyed container is at end."))
        }
        return items[currentIndex]
    }

    private mutating func advance<T>(_ value: T) -> T {
        currentIndex += 1
        return value
    }

    mutating func decodeNil() throws -> Bool {
        guard !isAtEnd else {
            throw DecodingError.valueNotFound(Any?.self, .init(codingPath: itemPath.keys, debugDescription: "Unkeyed container is at end."))
        }
        guard items[currentIndex] == .null else { return false }
        currentIndex += 1
        return true
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { advance(try decoder.bool(current(type), at: itemPath)) }
    mutating func decode(_ type: String.Type) throws -> String { advance(try decoder.string(current(type), at: itemPath)) }
    mutating func decode(_ type: Double.Type) throws -> Double { advance(try decoder.floatingPoint(current(type), at: itemPath)) }
    mutating func decode(_ type: Float.Type) throws -> Float { advance(try decoder.floatingPoint(current(type), at: itemPath)) }
    mutating func decode(_ type: Int.Type) throws -> Int { advance(try decoder.integer(current(type), at: itemPath)) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { advance(try decoder.integer(current(type), at: itemPath)) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { advance(try decoder.integer(current(type), at: itemPath)) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { advance(try decoder.integer(current(type), at: itemPath)) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { advance(try decoder.integer(current(type), at: itemPath)) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { advance(try decoder.integer(current(type), at: itemPath)) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { advance(try decoder.integer(current(type), at: itemPath)) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { advance(try decoder.integer(current(type), at: itemPath)) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { advance(try decoder.integer(current(type), at: itemPath)) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { advance(try decoder.integer(current(type), at: itemPath)) }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { advance(try decoder.decode(T.self, from: current(type), at: itemPath)) }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        let path = itemPath
        let fields = try TreeDecoder.object(current([String: Any].self), at: path)
        return advance(KeyedDecodingContainer(KeyedContainer<NestedKey>(decoder: decoder, fields: fields, path: path)))
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let path = itemPath
        let items = try TreeDecoder.array(current([Any].self), at: path)
        return advance(UnkeyedContainer(decoder: decoder, items: items, path: path))
    }

    mutating func superDecoder() throws -> any Decoder {
        advance(TreeDecoder(value: try current((any Decoder).self), path: itemPath))
    }
}
