import CustodianContracts

/// The device types the Twomes backend shipped with (its sensors.csv), so that a new deployment can
/// provision the project's devices at once. Researchers add further types through the admin API.
enum DefaultDeviceTypes {
    struct Definition {
        var name: String
        var displayName: String
        var properties: [(name: String, unit: String?)]
    }

    static let manualBase = DeviceTypeDefinition.manualBase

    static let all: [Definition] = [
        Definition(name: "Generic-Test", displayName: "Generic Test", properties: []),
        Definition(
            name: "DSMR-P1-gateway", displayName: "Smart meter P1 gateway",
            properties: [
                ("eMeterReadingSupplyLow", "kWh"), ("eMeterReadingSupplyHigh", "kWh"),
                ("eMeterReadingReturnLow", "kWh"), ("eMeterReadingReturnHigh", "kWh"), ("gMeterReadingSupply", "m^3"),
            ]),
        Definition(
            name: "DSMR-P1-gateway-TinTsTr", displayName: "Smart meter P1 gateway with temperatures",
            properties: [
                ("eMeterReadingSupplyLow", "kWh"), ("eMeterReadingSupplyHigh", "kWh"),
                ("eMeterReadingReturnLow", "kWh"), ("eMeterReadingReturnHigh", "kWh"), ("gMeterReadingSupply", "m^3"),
                ("roomTemp", "°C"), ("boilerSupplyTemp", "°C"), ("boilerReturnTemp", "°C"),
            ]),
        Definition(
            name: "OpenTherm-Monitor", displayName: "OpenTherm monitor",
            properties: [
                ("roomTemp", "°C"), ("roomSetpointTemp", "°C"), ("boilerSupplyTemp", "°C"), ("boilerReturnTemp", "°C"),
                ("isBoilerFlameOn", nil), ("isCentralHeatingModeOn", nil), ("isDomesticHotWaterModeOn", nil),
            ]),
        Definition(
            name: "CO2-meter-SCD4x", displayName: "CO₂ meter",
            properties: [
                ("CO2concentration", "ppm"), ("relativeHumidity", "%RH"), ("roomTemp", "°C"),
            ]),
        Definition(
            name: "Presence-Detector", displayName: "Presence detector",
            properties: [
                ("countPresence", nil), ("RSSI", "dBm"), ("isHome", nil), ("bleAddress", nil),
            ]),
    ]

    /// Every type measures `heartbeat` (docs/twomes.md, "Provisioning steps", E9b).
    static let heartbeat = DeviceTypeDefinition.heartbeat

    static var seedStatements: [String] {
        all.flatMap { type -> [String] in
            let properties = [(heartbeat, String?.none)] + type.properties
            return [
                """
                INSERT INTO devices.device_types (name, display_name, installation_manual_url)
                VALUES (\(literal(type.name)), \(literal(type.displayName)), \(literal(manualBase + type.name + "/")))
                """
            ]
                + properties.map { property in
                    """
                    INSERT INTO devices.properties (device_type_id, name, unit)
                    SELECT id, \(literal(property.0)), \(property.1.map(literal) ?? "NULL") FROM devices.device_types WHERE name = \(literal(type.name))
                    """
                }
        }
    }

    /// These are constants of ours, not input; quoting keeps them valid SQL all the same.
    private static func literal(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
