//! The report as JSON, for programs: an array with one object per point.

use serde::ser::{Serialize, SerializeMap, Serializer};

use crate::simulate::report::{Point, SimulationReport};

/// One point as a flat object, its keys in CSV's column order: the x key
/// (`clients`), the series key (`strategy`), `runs`, then `mean_KEY`,
/// `sd_KEY`, `min_KEY` and `max_KEY` for each measure.
struct Object<'a> {
    report: &'a SimulationReport,
    point: &'a Point,
}

impl Serialize for Object<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let (report, point) = (self.report, self.point);
        let mut map = serializer.serialize_map(Some(3 + 4 * report.measures.len()))?;
        map.serialize_entry(report.x, &point.x)?;
        map.serialize_entry(report.series, point.series)?;
        map.serialize_entry("runs", &point.runs)?;
        for (measure, s) in report.measures.iter().zip(&point.values) {
            let stats = [s.mean, s.std_dev, s.min, s.max];
            for (stat, value) in super::csv::STATISTICS.iter().zip(stats) {
                map.serialize_entry(&format!("{stat}_{}", measure.key), &value)?;
            }
        }
        map.end()
    }
}

/// The array of points, in the report's order (x major), pretty-printed and
/// ending in a newline.
///
/// # Errors
/// If serialization fails, which these plain types do not (a NaN would
/// become `null`).
pub fn render(report: &SimulationReport) -> anyhow::Result<String> {
    let objects: Vec<Object<'_>> = report.points.iter().map(|point| Object { report, point }).collect();
    let mut text = serde_json::to_string_pretty(&objects)?;
    text.push('\n');
    Ok(text)
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;
    use crate::simulate::export::csv;
    use crate::simulate::report::fixtures;

    #[test]
    fn one_object_per_point_with_csv_keys_in_order() {
        let report = fixtures::report();
        let text = render(&report).unwrap();
        let json: Value = serde_json::from_str(&text).unwrap();
        let objects = json.as_array().unwrap();
        assert_eq!(objects.len(), 4);
        let last = &objects[3];
        assert_eq!(last["clients"], 20);
        assert_eq!(last["strategy"], "full");
        assert_eq!(last["runs"], 2);
        assert_eq!(last["mean_calls"], 40.75);
        assert_eq!(last["min_calls"], 40.5);
        assert_eq!(last["max_time"], 11000.0);
        assert_eq!(last["sd_time"], 2_000_000f64.sqrt());
        // Keys appear in the text in CSV's column order.
        let first_object = &text[..text.find('}').unwrap()];
        let positions: Vec<usize> = csv::columns(&report)
            .iter()
            .map(|key| first_object.find(&format!("\"{key}\"")).expect("every column is a key"))
            .collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{first_object}");
    }
}
