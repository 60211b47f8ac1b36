/// CSV as RFC 4180 defines it: fields separated by commas, records by CRLF (a bare LF is taken too), a field in double
/// quotes may hold commas, line breaks and doubled quotes (`""` for one). A quote inside an unquoted field, or text after
/// a closing quote, is an error rather than a guess. A byte-order mark at the start is skipped.
public enum CSVRecords {
    public struct Record: Sendable, Equatable {
        /// The line the record starts on, from 1 (a quoted line break makes a record span lines).
        public var line: Int
        public var fields: [String]

        public init(line: Int, fields: [String]) {
            self.line = line
            self.fields = fields
        }
    }

    public struct Malformed: Error, Sendable, Equatable {
        public var line: Int
        public var message: String
    }

    /// Every record of `text`, blank lines left out.
    public static func parse(_ text: String) throws(Malformed) -> [Record] {
        var scanner = Scanner(text.unicodeScalars.first == "\u{FEFF}" ? Substring(text).dropFirst() : Substring(text))
        var records: [Record] = []
        while let record = try scanner.record() {
            if record.fields != [""] { records.append(record) }
        }
        return records
    }

    /// Reads one record at a time; a state machine over the text's Unicode scalars.
    struct Scanner {
        var scalars: Substring.UnicodeScalarView
        var index: Substring.UnicodeScalarView.Index
        var line = 1

        init(_ text: Substring) {
            scalars = text.unicodeScalars
            index = scalars.startIndex
        }

        mutating func next() -> Unicode.Scalar? {
            guard index < scalars.endIndex else { return nil }
            defer { index = scalars.index(after: index) }
            return scalars[index]
        }

        var peek: Unicode.Scalar? { index < scalars.endIndex ? scalars[index] : nil }

        /// The next record, nil at the end of the text.
        mutating func record() throws(Malformed) -> Record? {
            guard peek != nil else { return nil }
            let start = line
            var fields: [String] = []
            while true {
                let (field, end) = try self.field()
                fields.append(field)
                switch end {
                case .comma: continue
                case .lineBreak, .end: return Record(line: start, fields: fields)
                }
            }
        }

        enum FieldEnd { case comma, lineBreak, end }

        mutating func field() throws(Malformed) -> (String, FieldEnd) {
            var value = String.UnicodeScalarView()
            guard peek == "\"" else {
                while let scalar = next() {
                    switch scalar {
                    case ",": return (String(value), .comma)
                    case "\n":
                        line += 1
                        return (String(value), .lineBreak)
                    case "\r" where peek == "\n":
                        continue
                    case "\"":
                        throw Malformed(line: line, message: "a quote inside an unquoted field (quote the field and double the quote)")
                    default: value.append(scalar)
                    }
                }
                return (String(value), .end)
            }
            let opened = line
            _ = next()
            while let scalar = next() {
                if scalar == "\n" { line += 1 }
                guard scalar == "\"" else {
                    value.append(scalar)
                    continue
                }
                if peek == "\"" {
                    _ = next()
                    value.append("\"")
                    continue
                }
                switch next() {
                case nil: return (String(value), .end)
                case ","?: return (String(value), .comma)
                case "\n"?:
                    line += 1
                    return (String(value), .lineBreak)
                case "\r"? where peek == "\n":
                    _ = next()
                    line += 1
                    return (String(value), .lineBreak)
                default: throw Malformed(line: line, message: "text after a quoted field's closing quote")
                }
            }
            throw Malformed(line: opened, message: "a quoted field is not closed")
        }
    }
}
