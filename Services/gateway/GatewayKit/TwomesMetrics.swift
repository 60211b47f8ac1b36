import CustodianContracts

/// The Twomes figures of `/metrics` in Prometheus text: activated, attached devices that reported within
/// `CUSTODIAN_SILENT_AFTER` and those that did not, for an operator's alerting.
enum TwomesMetrics {
    static func render(_ activity: TwomesActivity) -> String {
        let after = activity.silentAfterSeconds
        return """
            # HELP custodian_twomes_devices_silent Activated, attached Twomes devices with no reading in the last \(after) s
            # TYPE custodian_twomes_devices_silent gauge
            custodian_twomes_devices_silent \(activity.silent)
            # HELP custodian_twomes_devices_reporting Activated, attached Twomes devices with a reading in the last \(after) s
            # TYPE custodian_twomes_devices_reporting gauge
            custodian_twomes_devices_reporting \(activity.reporting)

            """
    }
}
