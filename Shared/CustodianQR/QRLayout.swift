/// Where a symbol's modules land in an image: a quiet zone of `margin` light modules on every side (scanners
/// need one; the standard asks for 4), each module `moduleSize` pixels square.
public struct QRLayout: Sendable, Equatable {
    public let code: QRCode
    public let moduleSize: Int
    public let margin: Int

    public init(code: QRCode, moduleSize: Int, margin: Int) {
        precondition(moduleSize >= 1 && margin >= 0, "module size must be positive and margin non-negative")
        self.code = code
        self.moduleSize = moduleSize
        self.margin = margin
    }

    /// Modules per side, quiet zone included.
    public var modulesPerSide: Int { code.size + 2 * margin }

    /// Pixels per side.
    public var pixelsPerSide: Int { modulesPerSide * moduleSize }

    /// Whether the module at (`row`, `column`) of the whole image, quiet zone included, is dark.
    public func isDark(row: Int, column: Int) -> Bool {
        let symbolRow = row - margin
        let symbolColumn = column - margin
        guard (0..<code.size).contains(symbolRow), (0..<code.size).contains(symbolColumn) else { return false }
        return code[symbolRow, symbolColumn]
    }
}
