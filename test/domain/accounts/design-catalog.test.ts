import { describe, expect, it } from 'vitest';

import { createDesignCatalog } from '../../../src/domain/accounts/design-catalog.js';
import type { RewardsClient } from '../../../src/rewards/index.js';

function fakeRewards(products: Array<{ productId: string; name: string; prices: string[] }>) {
  let calls = 0;
  const rewards = {
    catalog: {
      listChoiceCards() {
        calls++;
        return (async function* () {
          yield* products.map((p) => ({ ...p, priceType: 'RANGE' }));
        })();
      },
    },
  } as unknown as RewardsClient;
  return { rewards, calls: () => calls };
}

describe('design catalog', () => {
  it('loads once per TTL, searches by name, and reads the [min, max] range in cents', async () => {
    const fake = fakeRewards([
      { productId: 'CC-1', name: 'Thank You', prices: ['5.00', '500.00'] },
      { productId: 'CC-2', name: 'Happy Birthday', prices: ['10.00', '250.00'] },
    ]);
    let now = 0;
    const catalog = createDesignCatalog(fake.rewards, { ttlMs: 1000, now: () => now });
    expect((await catalog.search('birth')).map((d) => d.productId)).toEqual(['CC-2']);
    expect(await catalog.get('CC-1')).toEqual({
      productId: 'CC-1',
      name: 'Thank You',
      minCents: 500,
      maxCents: 50_000,
    });
    expect(await catalog.search('')).toHaveLength(2);
    expect(fake.calls()).toBe(1);
    now = 1500;
    await catalog.search('x');
    expect(fake.calls()).toBe(2);
  });

  it('shares one load between concurrent callers', async () => {
    const fake = fakeRewards([{ productId: 'CC-1', name: 'Thank You', prices: ['5', '500'] }]);
    const catalog = createDesignCatalog(fake.rewards);
    await Promise.all([catalog.search('a'), catalog.search('b'), catalog.get('CC-1')]);
    expect(fake.calls()).toBe(1);
  });
});
