//! `btvm bench --svg FILE`: the results as a bar chart (plotters' SVG backend): one horizontal
//! bar per engine and thread count, its length the median ns per agent-tick, a whisker from the
//! fastest to the slowest run. The axis is logarithmic when the figures span more than a factor
//! of 20 (peers and baselines next to the engines), else linear from zero.
//!
//! This module only draws; it never measures and never writes files.

use plotters::prelude::*;

/// One bar.
#[derive(Clone, Debug)]
pub struct Bar {
    /// The row's label (`vm x2`).
    pub label: String,
    /// The median ns per agent-tick.
    pub ns: f64,
    /// The fastest run.
    pub min: f64,
    /// The slowest run.
    pub max: f64,
}

/// The chart as SVG text: `title` above the bars.
pub fn svg(title: &str, bars: &[Bar]) -> Result<String, String> {
    let mut out = String::new();
    let height = 90 + 34 * bars.len() as u32;
    {
        let root = SVGBackend::with_string(&mut out, (760, height)).into_drawing_area();
        root.fill(&WHITE).map_err(|e| e.to_string())?;
        let lo = bars
            .iter()
            .map(|b| b.min.min(b.ns))
            .fold(f64::INFINITY, f64::min);
        let hi = bars.iter().map(|b| b.max.max(b.ns)).fold(0.0, f64::max);
        if bars.is_empty() || !(lo > 0.0 && hi.is_finite()) {
            return Err("nothing to draw: no positive figures".into());
        }
        if hi / lo > 20.0 {
            draw(&root, title, bars, (lo / 1.5..hi * 1.5).log_scale())?;
        } else {
            draw(&root, title, bars, 0.0..hi * 1.1)?;
        }
        root.present().map_err(|e| e.to_string())?;
    }
    Ok(out)
}

/// Draws the bars against the x axis `x` (linear or logarithmic).
fn draw<X>(
    root: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    title: &str,
    bars: &[Bar],
    x: X,
) -> Result<(), String>
where
    X: plotters::coord::ranged1d::AsRangedCoord<Value = f64>,
    X::CoordDescType: plotters::coord::ranged1d::ValueFormatter<f64>,
{
    let n = bars.len() as f64;
    let mut chart = ChartBuilder::on(root)
        .caption(title, ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(150)
        .build_cartesian_2d(x, 0.0..n)
        .map_err(|e| e.to_string())?;
    // The first bar at the top: bar `i` sits at y = n - 1 - i.
    let label = |y: &f64| {
        let from_top = (n - 1.0 - y.floor()) as usize;
        match (y.fract() - 0.5).abs() < 1e-9 {
            true => bars
                .get(from_top)
                .map_or(String::new(), |b| b.label.clone()),
            false => String::new(),
        }
    };
    chart
        .configure_mesh()
        .disable_y_mesh()
        .y_labels(2 * bars.len() + 1)
        .y_label_formatter(&label)
        .x_label_formatter(&|x: &f64| format!("{x:.0}"))
        .x_desc("ns per agent-tick (median; whisker: min–max)")
        .draw()
        .map_err(|e| e.to_string())?;
    let base = chart.x_range().start;
    let colour = RGBColor(70, 110, 180);
    chart
        .draw_series(bars.iter().enumerate().map(|(i, b)| {
            let y = n - 1.0 - i as f64;
            Rectangle::new([(base, y + 0.2), (b.ns, y + 0.8)], colour.filled())
        }))
        .map_err(|e| e.to_string())?;
    chart
        .draw_series(bars.iter().enumerate().map(|(i, b)| {
            let y = n - 0.5 - i as f64;
            PathElement::new(vec![(b.min, y), (b.max, y)], BLACK.stroke_width(2))
        }))
        .map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bar(label: &str, ns: f64) -> Bar {
        Bar {
            label: label.into(),
            ns,
            min: ns * 0.9,
            max: ns * 1.1,
        }
    }

    #[test]
    fn every_bar_is_drawn_with_its_label() {
        let bars = [
            bar("reference x1", 800.0),
            bar("vm x1", 260.0),
            bar("native x2", 90.0),
        ];
        let svg = svg("demo.bt", &bars).unwrap();
        assert!(svg.starts_with("<svg"), "{svg}");
        for b in &bars {
            assert!(svg.contains(&b.label), "{} missing", b.label);
        }
        assert!(svg.contains("demo.bt"));
        // Three bars and the background: filled rectangles.
        assert!(svg.matches("<rect").count() >= 4, "{svg}");
    }

    #[test]
    fn wide_ranges_get_a_log_axis_and_nothing_is_an_error() {
        let wide = [bar("hand", 5.0), bar("peer", 5000.0)];
        assert!(svg("wide", &wide).is_ok());
        assert!(svg("none", &[]).is_err());
        assert!(svg("zero", &[bar("z", 0.0)]).is_err());
    }
}
