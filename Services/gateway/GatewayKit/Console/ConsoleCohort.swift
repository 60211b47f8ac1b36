import CustodianContracts
import CustodianHTTP
import Foundation
import HTTPTypes
import Hummingbird

/// The cohort form: a number of households, or a CSV file of them (what was typed stays after a refusal).
struct CohortFormView: ConsoleView {
    var count: String
    var columns: String
    var maximum: Int
    var csrf = ""
}

/// A cohort's printable sheet: one A4 letter per household with its pseudonym, activation link, expiry and QR code.
struct CohortSheetView: ConsoleView {
    var letters: [Letter]
    var count: String
    var csrf = ""

    struct Letter {
        var pseudonym: Int
        var link: String
        var expires: String
        var qr: String
    }
}

extension ConsoleRoutes {
    /// How many QR codes are asked for at once: a cohort of 500 must not open 500 calls to the links service together.
    static let qrConcurrency = 8
    /// A CSV of 500 households with every column fits well within this.
    static let cohortFormSize = 256 * 1024

    func cohort(_ visit: ConsoleVisit, error: String? = nil, status: HTTPResponse.Status = .ok) async throws -> Response {
        let view = CohortFormView(
            count: visit.field("count") ?? "", columns: CohortRequest.csvColumns.joined(separator: ","), maximum: CohortRequest.sizes.upperBound)
        return ConsolePage(title: "Enrol a cohort", template: "cohort", view: view, status: status, error: error, section: "accounts")
            .response(csrf: visit.csrf)
    }

    /// `POST /admin/v1/accounts/cohort` with a count, or the CSV file as it came (the service reads it and names a bad
    /// line and field; the page names the file too); then the sheet.
    func enrolCohort(_ visit: ConsoleVisit) async throws -> Response {
        let file = visit.field("file").flatMap { $0.contains(where: { !$0.isWhitespace }) ? $0 : nil }
        let fileName = visit.field("file" + ConsoleForm.fileNameSuffix).flatMap { $0.isEmpty ? nil : $0 } ?? "the CSV file"
        return try await form {
            let cohort: CohortAccounts
            if let file {
                do {
                    cohort = try await admin.call(
                        DevicesMethods.accountsCohort, forwarding: HTTPInput(body: .string(file), headers: ["content-type": "text/csv"]), for: visit)
                } catch var failure as ConsoleFailure where failure.status.code < 500 {
                    failure.message = "\(fileName): \(failure.message)"
                    throw failure
                }
            } else {
                guard let text = visit.text("count") else {
                    throw ConsoleFailure(status: .unprocessableContent, message: "Enter how many households to enrol, or choose a CSV file.")
                }
                guard let count = Int(text), CohortRequest.sizes.contains(count) else {
                    throw ConsoleFailure(
                        status: .unprocessableContent,
                        message: "Households: “\(text.prefix(20))” is not a number from 1 to \(CohortRequest.sizes.upperBound).")
                }
                cohort = try await admin.call(DevicesMethods.accountsCohort, CohortRequest(count: count), for: visit)
            }
            return try await cohortSheet(visit, cohort.accounts)
        } orShow: { failure in
            try await cohort(visit, error: failure.message, status: failure.status)
        }
    }

    /// The letters, each QR code fetched through the admin route, a few at a time.
    func cohortSheet(_ visit: ConsoleVisit, _ accounts: [IssuedActivation]) async throws -> Response {
        let admin = self.admin
        let codes = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            var codes = [String](repeating: "", count: accounts.count)
            var next = 0
            func start() {
                guard next < accounts.count else { return }
                let (index, link) = (next, accounts[next].firebase_url)
                group.addTask { (index, ConsoleAdmin.dataURL(try await admin.raw(LinksMethods.qrHttp, Self.qrCode(of: link), for: visit))) }
                next += 1
            }
            for _ in 0..<Self.qrConcurrency { start() }
            while let done = try await group.next() {
                codes[done.0] = done.1
                start()
            }
            return codes
        }
        let view = CohortSheetView(
            letters: zip(accounts, codes).map { account, qr in
                .init(pseudonym: account.pseudonym, link: account.firebase_url, expires: ConsoleText.display(account.activation_expires_at), qr: qr)
            },
            count: ConsoleText.counted(accounts.count, "household"))
        return ConsolePage(title: "Cohort letters", template: "cohort-sheet", view: view, status: .created, section: "accounts")
            .response(csrf: visit.csrf)
    }
}
