import CustodianQR

/// Draws a QR code as SVG: a white square for the whole image and one black path of dark modules, in a
/// view box measured in modules (quiet zone included) so the drawing scales without blur. Each horizontal run
/// of dark modules is one `M x y h n v 1 h -n z` rectangle, which keeps the file small and easy to check.
/// Nothing of the payload appears in the file as text.
public enum SVGRenderer {
    public static func render(_ layout: QRLayout) -> String {
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + element(layout, width: String(layout.pixelsPerSide), height: String(layout.pixelsPerSide))
            + "\n"
    }

    /// The `<svg>` element alone, for embedding in a page; `width`/`height` in any CSS unit.
    public static func element(_ layout: QRLayout, width: String, height: String) -> String {
        let side = layout.modulesPerSide
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
            <svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="\(width)" height="\(height)" \
            viewBox="0 0 \(side) \(side)" shape-rendering="crispEdges">
            <rect x="0" y="0" width="\(side)" height="\(side)" fill="#ffffff"/>
            <path fill="#000000" d="\(path)"/>
            </svg>
            """
    }
}
