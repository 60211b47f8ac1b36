import CustodianContracts
import CustodianHTTP
import CustodianQR
import CustodianRPC
import CustodianWeb
import Foundation

/// Renders `links.labels.sheet`.
enum LabelSheet {
    static let labelsPerPage = 12

    static func render(_ input: LabelSheetInput) throws -> RawHTTPReply {
        guard !input.labels.isEmpty else { throw RPCError.badRequest("a label sheet needs at least one label", reason: "no_labels") }
        guard input.labels.count <= LabelSheetInput.maximumLabels else {
            throw RPCError.badRequest("a label sheet holds at most \(LabelSheetInput.maximumLabels) labels", reason: "too_many_labels")
        }
        var pages: [String] = []
        for start in stride(from: 0, to: input.labels.count, by: labelsPerPage) {
            let cells = try input.labels[start..<min(start + labelsPerPage, input.labels.count)].map { label in
                let code = try QRImages.encode(label.payload, errorCorrection: input.errorCorrection)
                let image = SVGRenderer.element(QRLayout(code: code, moduleSize: 1, margin: 4), width: "46mm", height: "46mm")
                let subtitle = label.subtitle.map { "<div class=\"subtitle\">\(HTMLText.escape($0))</div>" } ?? ""
                return "<div class=\"label\">\(image)<div class=\"title\">\(HTMLText.escape(label.title))</div>\(subtitle)</div>"
            }
            pages.append("<section class=\"page\">\(cells.joined())</section>")
        }
        let html = """
            <!doctype html>
            <html lang="en"><head><meta charset="utf-8"><title>Device labels</title>
            <style>
            @page { size: A4; margin: 10mm; }
            body { margin: 0; font-family: sans-serif; }
            .page { display: grid; grid-template-columns: repeat(3, 60mm); grid-auto-rows: 66mm; gap: 4mm; break-after: page; }
            .label { border: 0.2mm dashed #999; padding: 2mm; text-align: center; }
            .title { font: bold 11pt monospace; margin-top: 1mm; }
            .subtitle { font-size: 8pt; color: #444; }
            </style></head>
            <body>\(pages.joined(separator: "\n"))</body></html>

            """
        return RawHTTPReply(
            status: 200, contentType: "text/html; charset=utf-8", text: html,
            headers: [
                "Cache-Control": "no-store",
                // The page carries activation tokens in its codes; nothing on it needs scripts.
                "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
            ])
    }
}
