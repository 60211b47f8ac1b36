import Foundation

/// Writes `Encodable` values as JSON: the one way typed values become JSON text here (a frame's input or result). A
/// ``JSONValue`` or a ``JSONValueWritable`` type writes itself; any other value is encoded to a tree and the tree written,
/// keys sorted and slashes as they are, as every frame is written.
///
/// The tree means what `JSONEncoder` with its default strategies writes for the same value (`Data` as base64, `URL` as
/// its string, `Date` as seconds since 2001), so ``JSONValueDecoder`` and `JSONDecoder` read it back alike. A `Float` is
/// written as its own shortest form (`0.1`, not the `0.10000000149011612` of the `Double` it widens to); a whole number
/// beyond `Int64` (a large `UInt64`), which a tree cannot hold, and a non-finite number are errors.
public struct JSONValueEncoder: Sendable {
    public init() {}

    /// The value as a tree.
    public func encode<T: Encodable>(_ value: T) throws -> JSONValue {
        try TreeEncoder.tree(of: value, at: .root([]))
    }

    /// The value's JSON text, appended to `output`.
    public func write<T: Encodable>(_ value: T, into output: inout [UInt8]) throws {
        if T.self == JSONValue.self {
            unsafeBitCast(value, to: JSONValue.self).write(into: &output)
        } else if let writable = T.self as? any JSONValueWritable.Type {
            Self.write(value, as: writable, into: &output)
        } else {
            try encode(value).write(into: &output)
        }
    }

    /// Opened, so that the value is never boxed in an existential to be written; `T` is `Writable`.
    private static func write<T, Writable: JSONValueWritable>(_ value: T, as writable: Writable.Type, into output: inout [UInt8]) {
        unsafeBitCast(value, to: Writable.self).writeJSON(into: &output)
    }
}

/// What an encoder's value became: a finished value, or an object, array or encoder that may still be written to (a
/// container handed out by `nestedContainer`, or an encoder by `superEncoder`, is filled after it is made).
enum EncodedSlot {
    case value(JSONValue)
    case object(ObjectSlot)
    case array(ArraySlot)
    case encoder(TreeEncoder)

    var value: JSONValue {
        switch self {
        case .value(let value): value
        case .object(let object): object.value
        case .array(let array): array.value
        case .encoder(let encoder): encoder.value
        }
    }
}

final class ObjectSlot {
    var fields: [String: JSONValue] = [:]
    /// Members given as nested containers, read when the object is finished.
    var nested: [String: EncodedSlot] = [:]

    var value: JSONValue {
        guard !nested.isEmpty else { return .object(fields) }
        return .object(fields.merging(nested.mapValues(\.value)) { _, nested in nested })
    }

    /// The last value given for a key counts, as with `JSONEncoder`.
    func set(_ value: JSONValue, for key: String) {
        fields[key] = value
        if !nested.isEmpty { nested[key] = nil }
    }
}

final class ArraySlot {
    var items: [JSONValue] = []
    /// Items given as nested containers, by index, read when the array is finished.
    var nested: [Int: EncodedSlot] = [:]

    var value: JSONValue {
        guard !nested.isEmpty else { return .array(items) }
        var items = items
        for (index, slot) in nested { items[index] = slot.value }
        return .array(items)
    }
}

/// Encodes one value: each member that is a value of its own gets an encoder of its own and is finished before the
/// member is set.
final class TreeEncoder: Encoder, SingleValueEncodingContainer {
    let path: CodingPath
    private(set) var slot: EncodedSlot?

    init(path: CodingPath) {
        self.path = path
    }

    var codingPath: [any CodingKey] { path.keys }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    static func tree<T: Encodable>(of value: T, at path: @autoclosure () -> CodingPath) throws -> JSONValue {
        if T.self == JSONValue.self { return unsafeBitCast(value, to: JSONValue.self) }
        if T.self == Data.self { return .string(unsafeBitCast(value, to: Data.self).base64EncodedString()) }
        if T.self == URL.self { return .string(unsafeBitCast(value, to: URL.self).absoluteString) }
        let encoder = TreeEncoder(path: path())
        try value.encode(to: encoder)
        return encoder.value
    }

    /// What was encoded; a value that encodes nothing is an empty object, as `JSONEncoder` writes it inside another.
    var value: JSONValue { slot?.value ?? .object([:]) }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        // A class and its superclass share one object, as with `JSONEncoder`.
        if case .object(let object)? = slot { return KeyedEncodingContainer(KeyedEncoder(object: object, path: path)) }
        let object = ObjectSlot()
        slot = .object(object)
        return KeyedEncodingContainer(KeyedEncoder(object: object, path: path))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        if case .array(let array)? = slot { return UnkeyedEncoder(array: array, path: path) }
        let array = ArraySlot()
        slot = .array(array)
        return UnkeyedEncoder(array: array, path: path)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer { self }

    // MARK: The single value

    func encodeNil() { slot = .value(.null) }
    func encode(_ value: Bool) { slot = .value(.bool(value)) }
    func encode(_ value: String) { slot = .value(.string(value)) }
    func encode(_ value: Double) throws { slot = .value(try Self.number(value, at: path)) }
    func encode(_ value: Float) throws { slot = .value(try Self.number(value, at: path)) }
    func encode(_ value: Int) throws { slot = .value(try Self.integer(value, at: path)) }
    func encode(_ value: Int8) throws { slot = .value(try Self.integer(value, at: path)) }
    func encode(_ value: Int16) throws { slot = .value(try Self.integer(value, at: path)) }
    func encode(_ value: Int32) throws { slot = .value(try Self.integer(value, at: path)) }
    func encode(_ value: Int64) throws { slot = .value(try Self.integer(value, at: path)) }
    func encode(_ value: UInt) throws { slot = .value(try Self.integer(value, at: path)) }
    func encode(_ value: UInt8) throws { slot = .value(try Self.integer(value, at: path)) }
    func encode(_ value: UInt16) throws { slot = .value(try Self.integer(value, at: path)) }
    func encode(_ value: UInt32) throws { slot = .value(try Self.integer(value, at: path)) }
    func encode(_ value: UInt64) throws { slot = .value(try Self.integer(value, at: path)) }
    func encode<T: Encodable>(_ value: T) throws { slot = .value(try Self.tree(of: value, at: path)) }

    // MARK: Numbers

    static func integer<T: BinaryInteger>(_ value: T, at path: @autoclosure () -> CodingPath) throws -> JSONValue {
        guard let integer = Int64(exactly: value) else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: path().keys, debugDescription: "\(value) is beyond the integers a JSON tree holds (Int64)."))
        }
        return .int(integer)
    }

    static func number(_ value: Double, at path: @autoclosure () -> CodingPath) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: path().keys, debugDescription: "Unable to encode Double.\(value) directly in JSON."))
        }
        return .double(value)
    }

    static func number(_ value: Float, at path: @autoclosure () -> CodingPath) throws -> JSONValue {
        guard value.isFinite else {
            throw EncodingError.invalidValue(
                value, .init(codingPath: path().keys, debugDescription: "Unable to encode Float.\(value) directly in JSON."))
        }
        // The double whose shortest form is the float's: written as `JSONEncoder` writes the float.
        return .double(Double(value.description) ?? Double(value))
    }
}

struct KeyedEncoder<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let object: ObjectSlot
    let path: CodingPath

    var codingPath: [any CodingKey] { path.keys }

    func encodeNil(forKey key: Key) { object.set(.null, for: key.stringValue) }
    func encode(_ value: Bool, forKey key: Key) { object.set(.bool(value), for: key.stringValue) }
    func encode(_ value: String, forKey key: Key) { object.set(.string(value), for: key.stringValue) }
    func encode(_ value: Double, forKey key: Key) throws { object.set(try TreeEncoder.number(value, at: path.appending(key)), for: key.stringValue) }
    func encode(_ value: Float, forKey key: Key) throws { object.set(try TreeEncoder.number(value, at: path.appending(key)), for: key.stringValue) }
    func encode(_ value: Int, forKey key: Key) throws { object.set(try TreeEncoder.integer(value, at: path.appending(key)), for: key.stringValue) }
    func encode(_ value: Int8, forKey key: Key) throws { object.set(try TreeEncoder.integer(value, at: path.appending(key)), for: key.stringValue) }
    func encode(_ value: Int16, forKey key: Key) throws { object.set(try TreeEncoder.integer(value, at: path.appending(key)), for: key.stringValue) }
    func encode(_ value: Int32, forKey key: Key) throws { object.set(try TreeEncoder.integer(value, at: path.appending(key)), for: key.stringValue) }
    func encode(_ value: Int64, forKey key: Key) throws { object.set(try TreeEncoder.integer(value, at: path.appending(key)), for: key.stringValue) }
    func encode(_ value: UInt, forKey key: Key) throws { object.set(try TreeEncoder.integer(value, at: path.appending(key)), for: key.stringValue) }
    func encode(_ value: UInt8, forKey key: Key) throws { object.set(try TreeEncoder.integer(value, at: path.appending(key)), for: key.stringValue) }
    func encode(_ value: UInt16, forKey key: Key) throws { object.set(try TreeEncoder.integer(value, at: path.appending(key)), for: key.stringValue) }
    func encode(_ value: UInt32, forKey key: Key) throws { object.set(try TreeEncoder.integer(value, at: path.appending(key)), for: key.stringValue) }
    func encode(_ value: UInt64, forKey key: Key) throws { object.set(try TreeEncoder.integer(value, at: path.appending(key)), for: key.stringValue) }
    func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        object.set(try TreeEncoder.tree(of: value, at: path.appending(key)), for: key.stringValue)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectSlot()
        object.nested[key.stringValue] = .object(nested)
        return KeyedEncodingContainer(KeyedEncoder<NestedKey>(object: nested, path: path.appending(key)))
    }

    func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let nested = ArraySlot()
        object.nested[key.stringValue] = .array(nested)
        return UnkeyedEncoder(array: nested, path: path.appending(key))
    }

    func superEncoder() -> any Encoder { superEncoder(named: "super", path: path.appending(SuperKey())) }
    func superEncoder(forKey key: Key) -> any Encoder { superEncoder(named: key.stringValue, path: path.appending(key)) }

    private func superEncoder(named name: String, path: CodingPath) -> any Encoder {
        let encoder = TreeEncoder(path: path)
        object.nested[name] = .encoder(encoder)
        return encoder
    }
}

struct UnkeyedEncoder: UnkeyedEncodingContainer {
    let array: ArraySlot
    let path: CodingPath

    var codingPath: [any CodingKey] { path.keys }
    var count: Int { array.items.count }

    private var itemPath: CodingPath { path.appending(IndexKey(array.items.count)) }

    func encodeNil() { array.items.append(.null) }
    func encode(_ value: Bool) { array.items.append(.bool(value)) }
    func encode(_ value: String) { array.items.append(.string(value)) }
    func encode(_ value: Double) throws { array.items.append(try TreeEncoder.number(value, at: itemPath)) }
    func encode(_ value: Float) throws { array.items.append(try TreeEncoder.number(value, at: itemPath)) }
    func encode(_ value: Int) throws { array.items.append(try TreeEncoder.integer(value, at: itemPath)) }
    func encode(_ value: Int8) throws { array.items.append(try TreeEncoder.integer(value, at: itemPath)) }
    func encode(_ value: Int16) throws { array.items.append(try TreeEncoder.integer(value, at: itemPath)) }
    func encode(_ value: Int32) throws { array.items.append(try TreeEncoder.integer(value, at: itemPath)) }
    func encode(_ value: Int64) throws { array.items.append(try TreeEncoder.integer(value, at: itemPath)) }
    func encode(_ value: UInt) throws { array.items.append(try TreeEncoder.integer(value, at: itemPath)) }
    func encode(_ value: UInt8) throws { array.items.append(try TreeEncoder.integer(value, at: itemPath)) }
    func encode(_ value: UInt16) throws { array.items.append(try TreeEncoder.integer(value, at: itemPath)) }
    func encode(_ value: UInt32) throws { array.items.append(try TreeEncoder.integer(value, at: itemPath)) }
    func encode(_ value: UInt64) throws { array.items.append(try TreeEncoder.integer(value, at: itemPath)) }
    func encode<T: Encodable>(_ value: T) throws { array.items.append(try TreeEncoder.tree(of: value, at: itemPath)) }

    func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let nested = ObjectSlot()
        let path = itemPath
        array.nested[array.items.count] = .object(nested)
        array.items.append(.null)
        return KeyedEncodingContainer(KeyedEncoder<NestedKey>(object: nested, path: path))
    }

    func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let nested = ArraySlot()
        let path = itemPath
        array.nested[array.items.count] = .array(nested)
        array.items.append(.null)
        return UnkeyedEncoder(array: nested, path: path)
    }

    func superEncoder() -> any Encoder {
        let encoder = TreeEncoder(path: itemPath)
        array.nested[array.items.count] = .encoder(encoder)
        array.items.append(.null)
        return encoder
    }
}
