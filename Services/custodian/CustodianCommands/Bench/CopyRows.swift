import NIOCore

/// Rows for `COPY … FROM STDIN` in PostgreSQL's text format: columns separated by tabs, a row ending in a line
/// break, `\N` for NULL, and backslash, tab and line breaks inside a value escaped with a backslash.
struct CopyRows: Sendable {
    private(set) var buffer: ByteBuffer
    private var columnsInRow = 0

    init(capacity: Int = 4096) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    mutating func append(_ value: String?) {
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

    mutating func append(_ value: Int64) {
        append(String(value))
    }

    mutating func endRow() {
        buffer.writeInteger(UInt8(ascii: "\n"))
        columnsInRow = 0
    }
}
