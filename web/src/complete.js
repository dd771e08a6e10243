// PromQL completion: what may come at the cursor, from the text before it.
// Pure: the caller supplies metric names, label names and label values (from
// /api/v1/label/__name__/values, /api/v1/labels, /api/v1/label/<n>/values).

export const FUNCTIONS = [
  'abs', 'absent', 'absent_over_time', 'avg_over_time', 'ceil', 'changes', 'clamp', 'clamp_max', 'clamp_min',
  'count_over_time', 'day_of_month', 'day_of_week', 'delta', 'deriv', 'exp', 'floor', 'histogram_quantile',
  'holt_winters', 'hour', 'idelta', 'increase', 'irate', 'label_join', 'label_replace', 'last_over_time', 'ln',
  'log2', 'log10', 'max_over_time', 'min_over_time', 'minute', 'month', 'predict_linear', 'present_over_time',
  'quantile_over_time', 'rate', 'resets', 'round', 'scalar', 'sgn', 'sort', 'sort_desc', 'sqrt',
  'stddev_over_time', 'stdvar_over_time', 'sum_over_time', 'time', 'timestamp', 'vector', 'year',
  'sum', 'avg', 'min', 'max', 'count', 'stddev', 'stdvar', 'topk', 'bottomk', 'quantile', 'count_values', 'group',
];

// -> {kind: 'metric'|'label'|'value', prefix, label?, metric?}
export function context(text) {
  let depth = 0;
  let open = -1;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{') {
      depth++;
      open = i;
    } else if (c === '}') depth = Math.max(0, depth - 1);
  }
  if (depth > 0) {
    const inside = text.slice(open + 1);
    const metric = /([a-zA-Z_:][a-zA-Z0-9_:]*)\s*$/.exec(text.slice(0, open))?.[1] || '';
    const v = /([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"((?:[^"\\]|\\.)*\\?)$/.exec(inside);
    if (v && inString) return { kind: 'value', label: v[1], prefix: v[3], metric };
    const l = /(?:^|,)\s*([a-zA-Z_][a-zA-Z0-9_]*)?$/.exec(inside);
    return { kind: 'label', prefix: l?.[1] || '', metric };
  }
  if (inString) return { kind: 'none', prefix: '' };
  return { kind: 'metric', prefix: /([a-zA-Z_:][a-zA-Z0-9_:]*)$/.exec(text)?.[1] || '' };
}

// Candidates that start with the prefix (then those that contain it), at most `limit`.
export function rank(candidates, prefix, limit = 12) {
  const p = prefix.toLowerCase();
  const starts = [];
  const contains = [];
  for (const c of candidates) {
    const l = c.toLowerCase();
    if (l.startsWith(p)) starts.push(c);
    else if (p && l.includes(p)) contains.push(c);
  }
  return [...starts.sort(), ...contains.sort()].slice(0, limit);
}
