/// Draws a QR code as SVG: a white square for the whole image and one black path of dark modules, in a
/// view box measured in modules (quiet zone included) so the drawing scales without blur. Each horizontal run
/// of dark modules is one `M x y h n v 1 h -n z` rectangle, which keeps the file small and easy to check.
/// Nothing of the payload appears in the file as text.
public enum SVGRenderer {
    public static func render(_ layout: QRLayout) -> String {
        let side = layout.modulesPerSide
        let pixels = layout.pixelsPerSide
        var path = ""
        for row in 0..<side {
            var column = 0
            while column < side {
                guard layout.isDark(row: row, column: column) else {
                    column += 1
                    continue
                }
                let start = column
                while column < side && layout.isDark(row: row, column: column) { column += 1 }
                path += "M\(start) \(row)h\(column - start)v1h-\(column - start)z"
            }
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(pixels)" height="\(pixels)" \
            viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">
            <rect x="0" y="0" width="\(side)" height="\(side)" fill="#ffffff"/>
            <path fill="#000000" d="\(path)"/>
            </svg>

            """
    }
}
