/// The two-letter country and language codes the tracing API and its admin routes take, and how their messages quote
/// what a client sent.
public enum Alpha2 {
    /// Two ASCII letters (checked before changing case: `ß` upper-cases to `SS`).
    public static func isValid(_ text: String) -> Bool {
        text.count == 2 && text.allSatisfy { $0.isASCII && $0.isLetter }
    }

    /// A client's text as a message quotes it: at most `length` characters, then `…`.
    public static func clip(_ text: String, to length: Int = 30) -> String {
        text.count > length ? String(text.prefix(length)) + "…" : text
    }
}
