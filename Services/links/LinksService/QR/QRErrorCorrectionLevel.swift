// The symbol and PNG code moved to CustodianQR so that the command line draws the same codes without depending on
// a service; re-exported so that whoever imports LinksService for its QR codes (tests among them) still finds them.
@_exported import CustodianQR
import CustodianContracts

extension QRCode.ErrorCorrection {
    /// The level a request names; the RPC contract has its own type, so that CustodianQR needs no contracts.
    init(_ level: QRErrorCorrection) {
        self =
            switch level {
            case .L: .L
            case .M: .M
            case .Q: .Q
            case .H: .H
            }
    }
}
