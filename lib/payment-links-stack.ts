import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { LinksTable } from './constructs/links-table.ts';
import { MerchantApi } from './constructs/merchant-api.ts';

export interface PaymentLinksStackProps extends StackProps {
  /** `dev` stages may be destroyed with their data; any other stage retains and protects it. */
  stage: string;
  checkoutBase?: string;
  throttle?: { rateLimit: number; burstLimit: number };
}

/** The whole service on AWS; the local stack (lib/local/) runs the same handlers from the same route table. */
export class PaymentLinksStack extends Stack {
  readonly api: MerchantApi;
  readonly table: LinksTable;

  constructor(scope: Construct, id: string, props: PaymentLinksStackProps) {
    super(scope, id, props);
    const protectData = props.stage !== 'dev';
    this.table = new LinksTable(this, 'Links', { protectData });
    this.api = new MerchantApi(this, 'Api', {
      table: this.table.table,
      throttle: props.throttle ?? { rateLimit: 100, burstLimit: 200 },
      checkoutBase: props.checkoutBase,
      protectData,
    });
  }
}
