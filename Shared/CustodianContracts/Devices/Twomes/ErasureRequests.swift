import CustodianHTTP
import CustodianJSON
import CustodianRPC

extension RequestReader {
    /// The `{pseudonym}` of an admin route's path (`/admin/v1/accounts/{pseudonym}`): a 400 unless it is one.
    public func pseudonymInPath() throws -> Int {
        let text = try path("pseudonym")
        guard let pseudonym = Int(text), CreateAccountRequest.pseudonymRange.contains(pseudonym) else {
            throw RPCError.badRequest("pseudonym must be a whole number from 800000 to 899999", reason: "invalid_path")
        }
        return pseudonym
    }
}

/// `POST /admin/v1/devices/{device_name}/detach` (its input a ``DeviceByName``): which account the device left (null
/// when it was attached to none, so a repeat changes nothing). The seed's "the link between device and account can be
/// undone, for re-deploying the device to another account" (docs/erasure.md, "Detaching a device").
public struct DeviceDetachment: RoutedJSON, Equatable {
    public var device: String
    @ExplicitNull public var detached_from: Int?
    /// Readings stay with the account they were taken for.
    public var measurements_kept: Int

    public init(device: String, detached_from: Int?, measurements_kept: Int) {
        self.device = device
        self.detached_from = detached_from
        self.measurements_kept = measurements_kept
    }
}
