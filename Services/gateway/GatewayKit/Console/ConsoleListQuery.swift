import CustodianHTTP
import CustodianJSON
import CustodianRPC
import Foundation

/// A list page's search and paging, as its address carries them (`?q=…&after=…`): read by the list route's own input
/// type, so that a bad value is refused in the route's words, and kept in the form's fields and the paging links.
struct ConsoleListQuery<Input: RoutedInput>: Sendable {
    /// The parameters as typed (`+` a space), by name, for the form's fields.
    var typed: [String: String]
    /// The input the route reads from them, or why it cannot (the route's 400).
    var input: Result<Input, ConsoleFailure>

    /// The parameters `names` of the visit's address; a repeated one is passed on as it came, for the route to refuse.
    init(_ visit: ConsoleVisit, names: [String]) {
        self.init(query: visit.request.uri.query, names: names)
    }

    init(query text: String?, names: [String]) {
        let query = URLEncodedForm.query(text ?? "")
        var passed: [String: [String]] = [:]
        var typed: [String: String] = [:]
        for name in names {
            // An empty field of a GET form is no filter, as it is to the routes.
            guard let values = query[name]?.filter({ !$0.isEmpty }), !values.isEmpty else { continue }
            passed[name] = values
            typed[name] = values[0]
        }
        self.typed = typed
        do {
            let request = try JSONValueEncoder().encode(HTTPInput(query: passed))
            input = .success(try Input.decoding.decode(Input.self, from: request))
        } catch let error as RPCError {
            input = .failure(ConsoleFailure(error))
        } catch {
            input = .failure(ConsoleFailure(status: .badRequest, message: "This page's address is not one the console made."))
        }
    }

    /// The address of another page of the list: this one's parameters as typed (the search kept), `cursor` as `name`.
    func link(_ path: String, _ name: String, _ cursor: String?) -> String? {
        cursor.map { address(path, setting: name, to: $0) }
    }

    /// The first page's address, the search kept, when this page is a later one (its address has a `name` cursor).
    func firstLink(_ path: String, _ name: String) -> String? {
        typed[name] == nil ? nil : address(path, setting: name, to: nil)
    }

    private func address(_ path: String, setting name: String, to value: String?) -> String {
        var parameters = typed
        parameters[name] = value
        guard !parameters.isEmpty else { return path }
        return path + "?" + parameters.sorted { $0.key < $1.key }.map { "\($0.key)=\(ConsoleText.queryEscaped($0.value))" }.joined(separator: "&")
    }
}

extension ConsoleRoutes {
    /// A list's page for the query in the address; a query its route refuses (a 4xx) gives no rows and the reason, for
    /// the page to show with its form as typed.
    func list<Input, Page: RoutedJSON>(
        _ method: RoutedMethod<Input, Page>, _ query: ConsoleListQuery<Input>, for visit: ConsoleVisit,
        adjusting adjust: (inout Input) -> Void = { _ in }
    ) async throws -> (page: Page?, refusal: ConsoleFailure?) {
        do {
            var input = try query.input.get()
            adjust(&input)
            return (try await admin.call(method, input, for: visit), nil)
        } catch let failure as ConsoleFailure where failure.status.code < 500 {
            return (nil, failure)
        }
    }
}

extension ConsoleVisit {
    /// A parameter of the page's path (`{device_id}`), percent-decoded as the routes decode theirs.
    func pathParameter(_ name: String) -> String {
        let value = context.parameters.get(name) ?? ""
        return value.removingPercentEncoding ?? value
    }
}
