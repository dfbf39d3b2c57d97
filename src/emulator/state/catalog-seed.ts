/** Catalog records as the emulator keeps them (amounts in cents of the product's currency). */
export interface BrandedProduct {
  productId: string;
  name: string;
  brandName: string;
  category: string;
  description: string;
  terms: string;
  redemptionInstructions: string | null;
  countryCode: string | null;
  /** Its rate to USD is the organization's current rate for this currency (state/exchange-rates.ts). */
  currencyCode: string;
  priceType: 'FIXED' | 'RANGE';
  /** FIXED: denominations; RANGE: [min, max]. */
  pricesCents: number[];
  priceStepCents: number | null;
}

export interface ChoiceDesign {
  productId: string;
  designName: string;
  description: string;
}

export const BRANDED_SEED: BrandedProduct[] = [
  fixed(
    'BR-AMAZON-US',
    'Amazon.com Gift Card',
    'Amazon',
    'shopping',
    'USA',
    'USD',
    [10, 25, 50, 100],
    'Redeem at amazon.com/redeem.',
  ),
  range(
    'BR-STARBUCKS',
    'Starbucks eGift',
    'Starbucks',
    'food',
    'USA',
    'USD',
    5,
    100,
    5,
    'Show the code at any participating store.',
  ),
  fixed('BR-TARGET', 'Target GiftCard', 'Target', 'shopping', 'USA', 'USD', [25, 50, 100], null),
  range(
    'BR-UBER',
    'Uber Gift Card',
    'Uber',
    'travel',
    'GLOBAL',
    'USD',
    15,
    500,
    1,
    'Add the code in the Uber app under Wallet.',
  ),
  fixed(
    'BR-NETFLIX',
    'Netflix Gift Card',
    'Netflix',
    'entertainment',
    null,
    'USD',
    [25, 30, 60],
    'Redeem at netflix.com/redeem.',
  ),
  range('BR-AIRBNB', 'Airbnb Gift Card', 'Airbnb', 'travel', 'GLOBAL', 'USD', 25, 1000, 25, null),
  fixed(
    'BR-IKEA-DE',
    'IKEA Geschenkkarte',
    'IKEA',
    'home',
    'DEU',
    'EUR',
    [20, 50, 100],
    'Im Markt oder online einlösen.',
  ),
  range('BR-ZALANDO', 'Zalando Gift Card', 'Zalando', 'fashion', 'DEU', 'EUR', 10, 250, 0.5, null),
  fixed('BR-TESCO', 'Tesco Gift Card', 'Tesco', 'food', 'GBR', 'GBP', [10, 20, 50], 'Use in store or at tesco.com.'),
  range(
    'BR-DOORDASH',
    'DoorDash Gift Card',
    'DoorDash',
    'food',
    'USA',
    'USD',
    10,
    200,
    0.01,
    'Add to your DoorDash account.',
  ),
  fixed('BR-APPLE', 'Apple Gift Card', 'Apple', 'entertainment', 'USA', 'USD', [15, 25, 50, 100, 200], null),
  fixed(
    'BR-CHARITY',
    'Charity Choice Donation',
    'CharityChoice',
    'charity',
    null,
    'USD',
    [10, 25, 50],
    'Pick a charity at redemption.',
  ),
];

export const CHOICE_SEED: ChoiceDesign[] = [
  { productId: 'CC-THANK-YOU', designName: 'Thank You', description: 'A bright thank-you card.' },
  { productId: 'CC-BIRTHDAY', designName: 'Happy Birthday', description: 'Balloons and confetti.' },
  { productId: 'CC-CONGRATS', designName: 'Congratulations', description: 'For big wins and milestones.' },
  { productId: 'CC-WELCOME', designName: 'Welcome Aboard', description: 'For new team members.' },
  { productId: 'CC-HOLIDAY', designName: 'Happy Holidays', description: 'Seasonal greetings.' },
];

function common(
  productId: string,
  name: string,
  brandName: string,
  category: string,
  countryCode: string | null,
  currencyCode: string,
  redemptionInstructions: string | null,
) {
  return {
    productId,
    name,
    brandName,
    category,
    countryCode,
    currencyCode,
    redemptionInstructions,
    description: `${name}: spend it on anything ${brandName} offers.`,
    terms: `${brandName} gift cards cannot be exchanged for cash. See ${brandName} for full terms.`,
  };
}

function fixed(
  productId: string,
  name: string,
  brand: string,
  category: string,
  country: string | null,
  currency: string,
  denominations: number[],
  instructions: string | null,
): BrandedProduct {
  return {
    ...common(productId, name, brand, category, country, currency, instructions),
    priceType: 'FIXED',
    pricesCents: denominations.map((d) => Math.round(d * 100)),
    priceStepCents: null,
  };
}

function range(
  productId: string,
  name: string,
  brand: string,
  category: string,
  country: string | null,
  currency: string,
  min: number,
  max: number,
  step: number,
  instructions: string | null,
): BrandedProduct {
  return {
    ...common(productId, name, brand, category, country, currency, instructions),
    priceType: 'RANGE',
    pricesCents: [Math.round(min * 100), Math.round(max * 100)],
    priceStepCents: Math.round(step * 100),
  };
}
