import Foundation

/// zbarimg (Debian's zbar-tools) reads a QR code image back to the bytes it holds, independently of libqrencode.
enum QRScanner {
    static func decode(_ image: Data) throws -> [UInt8] {
        guard let zbarimg = ["/usr/bin/zbarimg", "/usr/local/bin/zbarimg"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw PlatformError("zbarimg is not installed; install zbar-tools (Deploy/dev/install-dependencies.sh --tests does)")
        }
        let path = NSTemporaryDirectory() + "cit-qr-\(UUID().uuidString).png"
        try image.write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: zbarimg)
        process.arguments = ["--raw", "-q", "-Sbinary", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw PlatformError("zbarimg found no QR code (status \(process.terminationStatus))") }
        // zbarimg may end its output with a newline of its own.
        var bytes = Array(output)
        if bytes.last == 0x0A { bytes.removeLast() }
        return bytes
    }

    /// Percent-encodes everything but RFC 3986's unreserved characters, as a query value must be.
    static func queryEncode(_ value: String) -> String {
        value.addingPercentEncoding(
            withAllowedCharacters: CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")) ?? value
    }
}
