import CustodianProcess

/// A duration given on the command line: `30s`, `10m`, `500ms`, or a bare number of seconds (`--duration 60`, as wrk
/// and most load tools take it).
enum CommandLineDuration {
    static func parse(_ text: String) -> Duration? {
        let seconds = !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isNumber || $0 == ".") }
        return Configuration.parseDuration(seconds ? text + "s" : text)
    }
}
