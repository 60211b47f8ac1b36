import CustodianContracts

/// The retention figures of `/metrics` in Prometheus text: passes, rows deleted, and the last pass's time and cutoff,
/// by service and data class.
enum RetentionMetrics {
    static func render(_ totals: [SystemMethods.RetentionTotals]) -> String {
        let rows = totals.flatMap { service in service.classes.map { (service.service, $0) } }
        guard !rows.isEmpty else { return "" }
        let families: [(name: String, type: String, help: String, value: (SystemMethods.RetentionTotals.DataClass) -> String)] = [
            ("custodian_retention_passes_total", "counter", "Retention passes run", { String($0.passes) }),
            ("custodian_retention_deleted_total", "counter", "Rows deleted by retention", { String($0.deleted) }),
            ("custodian_retention_last_pass_timestamp_seconds", "gauge", "When the last retention pass ran", { String($0.lastPass) }),
            ("custodian_retention_last_cutoff_timestamp_seconds", "gauge", "What the last pass deleted was older than", { String($0.lastCutoff) }),
        ]
        var text = ""
        for family in families {
            text += "# HELP \(family.name) \(family.help)\n# TYPE \(family.name) \(family.type)\n"
            for (service, dataClass) in rows {
                text += "\(family.name){service=\"\(service)\",data_class=\"\(dataClass.dataClass)\"} \(family.value(dataClass))\n"
            }
        }
        return text
    }
}
