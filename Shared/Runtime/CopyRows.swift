import Logging
import NIOCore
import PostgresNIO

/// Rows for `COPY … FROM STDIN` in PostgreSQL's text format: columns separated by tabs, a row ending in a line
/// break, `\N` for NULL, and backslash, tab and line breaks inside a value escaped with a backslash.
public struct CopyRows: Sendable {
    public private(set) var buffer: ByteBuffer
    private var columnsInRow = 0

    public init(capacity: Int = 4096) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    public mutating func append(_ value: String?) {
        if columnsInRow > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
        columnsInRow += 1
        guard var text = value else {
            buffer.writeStaticString("\\N")
            return
        }
        text.withUTF8 { bytes in
            var start = 0
            for (index, byte) in bytes.enumerated() {
                let escaped: UInt8
                switch byte {
                case UInt8(ascii: "\\"): escaped = UInt8(ascii: "\\")
                case UInt8(ascii: "\t"): escaped = UInt8(ascii: "t")
                case UInt8(ascii: "\n"): escaped = UInt8(ascii: "n")
                case UInt8(ascii: "\r"): escaped = UInt8(ascii: "r")
                default: continue
                }
                buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start..<index]))
                buffer.writeBytes([UInt8(ascii: "\\"), escaped])
                start = index + 1
            }
            buffer.writeBytes(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(bytes)[start...]))
        }
    }

    public mutating func append(_ value: Int64) {
        append(String(value))
    }

    public mutating func endRow() {
        buffer.writeInteger(UInt8(ascii: "\n"))
        columnsInRow = 0
    }

    public var text: String { String(buffer: buffer) }
}

extension Database {
    /// Copies `rows` into `schema.table` in one `COPY`: all or nothing, like one statement.
    public func copy(_ rows: CopyRows, into table: String, schema: String, columns: [String], logger: Logger) async throws {
        try await withConnection { connection in
            // postgres-nio puts the name between one pair of quotes as it is given: this makes it "schema"."table".
            try await connection.copyFrom(table: "\(schema)\".\"\(table)", columns: columns, logger: logger) { writer in
                try await writer.write(rows.buffer)
            }
        }
    }
}
