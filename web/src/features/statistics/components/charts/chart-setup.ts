/**
 * Chart.js with only what the statistics page draws: bar charts (stacked per day, or
 * horizontal for the VPN providers) on a category and a linear axis, with tooltips.
 * Imported dynamically by the chart component, so it is its own chunk that only the
 * statistics page loads; visitors never download it.
 *
 * Chart.js draws on a canvas and sets the canvas's size through the style object (CSSOM),
 * which the Content-Security-Policy allows (it refuses style attributes and inline style
 * sheets only); it injects no style sheet.
 */
import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip } from 'chart.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

export { Chart };
