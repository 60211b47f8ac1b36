import Foundation
import Testing

/// zbarimg (Debian's zbar-tools), a QR decoder that shares no code with libqrencode: if it reads back the
/// payload byte for byte, the symbol and the image file are both right.
enum Scanner {
    static let zbarimg = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first { FileManager.default.isExecutableFile(atPath: $0) }
    /// librsvg's converter (Debian's librsvg2-bin), to turn an SVG into a PNG zbarimg can read; optional.
    static let rsvgConvert = ["/usr/bin/rsvg-convert", "/usr/local/bin/rsvg-convert"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The bytes zbarimg finds in an image file, without the newline it ends its output with.
    static func decode(_ image: Data, fileExtension: String = "png") throws -> [UInt8] {
        guard let zbarimg else {
            throw ScannerError("zbarimg is not installed; install zbar-tools (Deploy/dev/install-dependencies.sh --tests does)")
        }
        let path = temporaryPath(fileExtension)
        try image.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        // --raw: the data only; -Sbinary: the bytes as they are, with no guess at a text encoding.
        let (status, output) = try run(zbarimg, ["--raw", "-q", "-Sbinary", path])
        guard status == 0 else { throw ScannerError("zbarimg found no QR code (exit status \(status))") }
        return output
    }

    /// Compares what zbarimg read with the payload; zbarimg may end its output with a newline of its own.
    static func matches(_ decoded: [UInt8], _ payload: [UInt8]) -> Bool {
        decoded == payload || decoded == payload + [0x0A]
    }

    /// Renders an SVG to PNG with rsvg-convert, for zbarimg.
    static func rasterize(svg: String) throws -> Data {
        guard let rsvgConvert else { throw ScannerError("rsvg-convert is not installed") }
        let input = temporaryPath("svg")
        let output = temporaryPath("png")
        try Data(svg.utf8).write(to: URL(fileURLWithPath: input))
        defer {
            try? FileManager.default.removeItem(atPath: input)
            try? FileManager.default.removeItem(atPath: output)
        }
        let (status, _) = try run(rsvgConvert, ["--format", "png", "--output", output, input])
        guard status == 0 else { throw ScannerError("rsvg-convert failed with status \(status)") }
        return try Data(contentsOf: URL(fileURLWithPath: output))
    }

    private static func temporaryPath(_ fileExtension: String) -> String {
        NSTemporaryDirectory() + "links-test-\(UUID().uuidString).\(fileExtension)"
    }

    private static func run(_ executable: String, _ arguments: [String]) throws -> (Int32, [UInt8]) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, Array(output))
    }
}

struct ScannerError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
