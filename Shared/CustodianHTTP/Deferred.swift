import CustodianRPC

/// A part of a request read with the rest of the input but refused only when the handler asks for it: for an API that
/// checks it after a lookup (the admin API answers 404 for a user that does not exist, whatever the body says). What
/// cannot be read is worded by the input's API as when the whole input is refused.
public struct Deferred<Value: Sendable>: Sendable {
    private let result: Result<Value, RPCError>

    /// `read`'s value, or what it threw in `decoding`'s words.
    public init(_ decoding: RequestDecoding, _ read: () throws -> Value) throws {
        do {
            result = .success(try read())
        } catch let error as DecodingError {
            result = .failure(decoding.refusal(error))
        } catch let error as RPCError {
            result = .failure(error)
        }
    }

    public init(_ value: Value) {
        result = .success(value)
    }

    /// The value, or the API's error for it.
    public func get() throws(RPCError) -> Value {
        try result.get()
    }

    /// The value when it could be read (for writing the request back).
    public var value: Value? {
        try? result.get()
    }
}

extension Deferred: Equatable where Value: Equatable {}
