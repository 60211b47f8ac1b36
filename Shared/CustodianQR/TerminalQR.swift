/// Draws a QR code in a terminal with the half blocks of UTF-8 (`▀`, `▄`, `█` and space): a character cell is
/// about twice as tall as it is wide, so two module rows to a line keep the modules about square and the whole
/// code small enough for one screen, where a phone or camera can read it.
///
/// A glyph's ink is a dark module. Scanners look for dark modules on a light ground, and many do not read the
/// inverse, which is what plain glyphs give on a terminal with a dark background: `blackOnWhite` paints every
/// line's cells black on white whatever the terminal's colours are.
public enum TerminalQR {
    public enum Colours: Sendable {
        /// The terminal's own colours: right on a light background, and in a file or a pipe.
        case plain
        /// ANSI SGR black on bright white for each line, reset at its end.
        case blackOnWhite
    }

    static let blackOnWhite = "\u{1B}[30;107m"
    static let reset = "\u{1B}[0m"

    /// One string per line of text, `margin` light modules of quiet zone on every side (the standard asks for 4).
    /// With an odd number of module rows, the last line's lower halves are light.
    public static func lines(_ code: QRCode, margin: Int = 4, colours: Colours = .plain) -> [String] {
        let layout = QRLayout(code: code, moduleSize: 1, margin: margin)
        let side = layout.modulesPerSide
        return stride(from: 0, to: side, by: 2).map { top in
            let cells = String(
                (0..<side).map { column in
                    glyph(top: layout.isDark(row: top, column: column), bottom: layout.isDark(row: top + 1, column: column))
                })
            return switch colours {
            case .plain: cells
            case .blackOnWhite: blackOnWhite + cells + reset
            }
        }
    }

    /// The module rows a drawing shows, two a line: the reverse of ``lines(_:margin:colours:)`` for plain colours, to
    /// check what a terminal shows. Nil when a line holds anything but the four glyphs.
    public static func modules<Line: StringProtocol>(_ lines: [Line]) -> [[Bool]]? {
        var rows: [[Bool]] = []
        for line in lines {
            var top: [Bool] = [], bottom: [Bool] = []
            for character in line {
                switch character {
                case "█": top.append(true); bottom.append(true)
                case "▀": top.append(true); bottom.append(false)
                case "▄": top.append(false); bottom.append(true)
                case " ": top.append(false); bottom.append(false)
                default: return nil
                }
            }
            rows += [top, bottom]
        }
        return rows
    }

    static func glyph(top: Bool, bottom: Bool) -> Character {
        switch (top, bottom) {
        case (true, true): "█"
        case (true, false): "▀"
        case (false, true): "▄"
        case (false, false): " "
        }
    }
}
