import CQRencode
import Foundation

/// A QR code symbol: the square of modules libqrencode chose for some bytes. The bytes are encoded in 8-bit
/// mode as they are, so a scanner gives back exactly the payload, NUL bytes and invalid UTF-8 included.
public struct QRCode: Sendable, Equatable {
    /// How much of the symbol may be damaged and still read: about 7 %, 15 %, 25 % and 30 %.
    public enum ErrorCorrection: String, Sendable, Codable, CaseIterable {
        case L, M, Q, H
    }

    /// 1 to 40; a version-v symbol is 17 + 4v modules wide.
    public let version: Int
    /// Modules per side.
    public let size: Int
    public let errorCorrection: ErrorCorrection
    /// Row-major, `true` for a dark module.
    public let modules: [Bool]

    public init(encoding payload: some Collection<UInt8>, errorCorrection: ErrorCorrection = .M) throws(QRCodeError) {
        let bytes = Array(payload)
        guard !bytes.isEmpty else { throw .emptyPayload }
        guard bytes.count <= errorCorrection.maximumPayloadBytes else {
            throw .payloadTooLong(bytes: bytes.count, maximum: errorCorrection.maximumPayloadBytes, errorCorrection: errorCorrection)
        }
        // Version 0 lets libqrencode pick the smallest symbol that fits.
        guard let symbol = QRcode_encodeData(Int32(bytes.count), bytes, 0, errorCorrection.level) else {
            let code = errno
            if code == ERANGE {
                throw .payloadTooLong(bytes: bytes.count, maximum: errorCorrection.maximumPayloadBytes, errorCorrection: errorCorrection)
            }
            throw .encoderFailed(errno: code)
        }
        defer { QRcode_free(symbol) }
        let width = Int(symbol.pointee.width)
        // Bit 0 of each byte is the module's colour; the other bits say what the module is for.
        let data = UnsafeBufferPointer(start: symbol.pointee.data, count: width * width)
        self.version = Int(symbol.pointee.version)
        self.size = width
        self.errorCorrection = errorCorrection
        self.modules = data.map { $0 & 1 == 1 }
    }

    public init(encoding text: String, errorCorrection: ErrorCorrection = .M) throws(QRCodeError) {
        try self.init(encoding: Array(text.utf8), errorCorrection: errorCorrection)
    }

    public subscript(row: Int, column: Int) -> Bool {
        modules[row * size + column]
    }

    /// The symbol as text, `#` for dark and `.` for light, one line per row: for test vectors and eyes.
    public var textMatrix: String {
        (0..<size).map { row in String((0..<size).map { self[row, $0] ? "#" : "." }) }.joined(separator: "\n")
    }
}

public enum QRCodeError: Error, Sendable, Equatable, CustomStringConvertible {
    case emptyPayload
    case payloadTooLong(bytes: Int, maximum: Int, errorCorrection: QRCode.ErrorCorrection)
    case encoderFailed(errno: Int32)

    public var description: String {
        switch self {
        case .emptyPayload:
            "A QR code needs at least one byte of data"
        case .payloadTooLong(let bytes, let maximum, let level):
            "The data is \(bytes) bytes long; a QR code with error correction \(level.rawValue) holds at most \(maximum) bytes "
                + "(use a lower level or less data)"
        case .encoderFailed(let code):
            "libqrencode could not encode the data (errno \(code))"
        }
    }
}

extension QRCode.ErrorCorrection {
    var level: QRecLevel {
        switch self {
        case .L: QR_ECLEVEL_L
        case .M: QR_ECLEVEL_M
        case .Q: QR_ECLEVEL_Q
        case .H: QR_ECLEVEL_H
        }
    }

    /// The most bytes an 8-bit-mode symbol holds at this level (version 40, ISO/IEC 18004 table 7).
    public var maximumPayloadBytes: Int {
        switch self {
        case .L: 2953
        case .M: 2331
        case .Q: 1663
        case .H: 1273
        }
    }
}
