import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as f from '../src/format.js';

test('sizes in IEC units, three significant digits', () => {
  assert.equal(f.bytes(0), '0 B');
  assert.equal(f.bytes(1023), '1023 B');
  assert.equal(f.bytes(1024), '1 KiB');
  assert.equal(f.bytes(81559 * 1024 * 1024), '79.6 GiB');
  assert.equal(f.mib(72704), '71 GiB');
  assert.equal(f.bytes(NaN), '–');
  assert.equal(f.bytesPair(72704 * 1048576, 81559 * 1048576), '71 / 79.6 GiB');
  assert.equal(f.bytesPair(512, 2048), '0.5 / 2 KiB');
});

test('rates, power, temperature, clocks, ratios', () => {
  assert.equal(f.bytesPerSecond(1.5e9), '1.5 GB/s');
  assert.equal(f.bitsPerSecond(125e6), '1 Gb/s');
  assert.equal(f.watts(652.4), '652 W');
  assert.equal(f.celsius(61.6), '62 °C');
  assert.equal(f.hertz(1.98e9), '1.98 GHz');
  assert.equal(f.ratio(0.4251), '42.5 %');
  assert.equal(f.percent(97), '97 %');
  assert.equal(f.sig3(0.0001234), '0');
  assert.equal(f.sig3(0.01234), '0.012');
  assert.equal(f.sig3(12345.6), '12346');
});

test('seconds and durations', () => {
  assert.equal(f.seconds(0.00025), '250 µs');
  assert.equal(f.seconds(0.0123), '12.3 ms');
  assert.equal(f.seconds(42), '42 s');
  assert.equal(f.seconds(3725), '1h 2m');
  assert.equal(f.duration(90061), '1d 1h');
  assert.equal(f.duration(59), '59s');
  assert.equal(f.parseDuration('5m'), 300);
  assert.equal(f.parseDuration('1h30m'), 5400);
  assert.equal(f.parseDuration('2d'), 172800);
  assert.equal(f.parseDuration('500ms'), 0.5);
  assert.equal(f.parseDuration(''), null);
  assert.equal(f.parseDuration('5 minutes'), null);
  assert.equal(f.formatDuration(5400), '1h30m');
  assert.equal(f.formatDuration(86400 * 15), '15d');
  assert.equal(f.formatDuration(1.5), '1s500ms');
});

test('a unit for each metric name', () => {
  assert.equal(f.formatterFor('node_memory_MemTotal_bytes')(1073741824), '1 GiB');
  assert.equal(f.formatterFor('DCGM_FI_DEV_GPU_TEMP')(61), '61 °C');
  assert.equal(f.formatterFor('DCGM_FI_DEV_POWER_USAGE')(652), '652 W');
  assert.equal(f.formatterFor('DCGM_FI_DEV_SM_CLOCK')(1980), '1.98 GHz');
  assert.equal(f.formatterFor('DCGM_FI_DEV_FB_USED')(1024), '1 GiB');
  assert.equal(f.formatterFor('llmon_gpu_utilization_ratio')(0.5), '50 %');
});

test('time ticks follow the range', () => {
  const t = new Date(2026, 11, 2, 9, 5, 7).getTime() / 1000;
  assert.equal(f.timeTick(t, 300), '09:05:07');
  assert.equal(f.timeTick(t, 86400), '09:05');
  assert.equal(f.timeTick(t, 7 * 86400), '12/2 09:05');
});
