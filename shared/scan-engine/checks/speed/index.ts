import type { Check } from '../../check.ts';
import speedCaching from './speed-caching.ts';
import speedCls from './speed-cls.ts';
import speedCompression from './speed-compression.ts';
import speedFcp from './speed-fcp.ts';
import speedImageWeight from './speed-image-weight.ts';
import speedLcp from './speed-lcp.ts';
import speedLighthousePerformance from './speed-lighthouse-performance.ts';
import speedPageWeight from './speed-page-weight.ts';
import speedRenderBlocking from './speed-render-blocking.ts';
import speedSpeedIndex from './speed-speed-index.ts';
import speedTbt from './speed-tbt.ts';
import speedTtfb from './speed-ttfb.ts';

// Checks of this folder, registered here in a stable order.
export const speedChecks: Check[] = [
  speedTtfb,
  speedPageWeight,
  speedCompression,
  speedCaching,
  speedRenderBlocking,
  speedImageWeight,
  speedFcp,
  speedLcp,
  speedTbt,
  speedCls,
  speedSpeedIndex,
  speedLighthousePerformance,
];
