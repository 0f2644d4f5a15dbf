import { fireEvent, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { Avatar, avatarInitials } from './avatar';
import { Badge } from './badge';
import { Button } from './button';
import { Checkbox } from './checkbox';
import { ConfirmDialog } from './dialog';
import { SimpleSelect } from './select';
import { Accordion, AccordionContent, AccordionItem, AccordionTrigger } from './accordion';
import { Alert, type AlertVariant } from './alert';

describe('Alert', () => {
  it.each<[AlertVariant, string, string]>([
    ['success', 'check', 'note'],
    ['info', 'info', 'note'],
    ['warning', 'warning', 'note'],
    ['danger', 'warning', 'alert'],
  ])('a %s box shows the %s icon (role %s)', (variant, icon, role) => {
    render(
      <Alert variant={variant} title="Title">
        Body
      </Alert>,
    );
    expect(screen.getByRole(role).querySelector('svg')).toHaveAttribute('data-icon', icon);
  });
});

describe('avatarInitials', () => {
  it.each([
    ['alice', 'AL'],
    ['  bob ', 'BO'],
    ['x', 'X'],
    ['', '?'],
    [null, '?'],
    [undefined, '?'],
  ])('%j → %s', (name, initials) => {
    expect(avatarInitials(name)).toBe(initials);
  });
});

describe('Avatar', () => {
  it('shows the image, and the initials when it fails to load', () => {
    render(<Avatar src="https://cdn.example/a.png" name="charlie" />);
    const image = screen.getByRole('img', { name: 'charlie' });
    expect(image.tagName).toBe('IMG');
    fireEvent.error(image);
    expect(screen.getByText('CH')).toBeInTheDocument();
  });

  it('shows the initials without a URL', () => {
    render(<Avatar name="dave" />);
    expect(screen.getByText('DA')).toBeInTheDocument();
  });
});

describe('Button', () => {
  it('is disabled and busy while loading', () => {
    render(<Button loading>Creating...</Button>);
    const button = screen.getByRole('button', { name: 'Creating...' });
    expect(button).toBeDisabled();
    expect(button).toHaveAttribute('aria-busy', 'true');
  });
});

describe('Badge', () => {
  it('carries its colour', () => {
    render(<Badge color="amber">1 Alt</Badge>);
    expect(screen.getByText('1 Alt')).toHaveAttribute('data-color', 'amber');
  });
});

describe('Checkbox', () => {
  it('reports the checked state', async () => {
    const onCheckedChange = jest.fn();
    render(<Checkbox aria-label="Agree" onCheckedChange={onCheckedChange} />);
    await userEvent.click(screen.getByRole('checkbox', { name: 'Agree' }));
    expect(onCheckedChange).toHaveBeenCalledWith(true);
  });
});

describe('ConfirmDialog', () => {
  function Harness({ onConfirm }: { onConfirm: () => Promise<void> }) {
    const [open, setOpen] = useState(true);
    return (
      <ConfirmDialog
        open={open}
        onOpenChange={setOpen}
        title="Delete Verification Record"
        description="This cannot be undone."
        confirmLabel="Delete"
        destructive
        onConfirm={onConfirm}
      />
    );
  }

  it('closes after the action succeeds', async () => {
    const onConfirm = jest.fn(() => Promise.resolve());
    render(<Harness onConfirm={onConfirm} />);
    expect(screen.getByRole('alertdialog', { name: 'Delete Verification Record' })).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    expect(onConfirm).toHaveBeenCalled();
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
  });

  it('stays open when the action fails', async () => {
    render(<Harness onConfirm={() => Promise.reject(new Error('500: boom'))} />);
    await userEvent.click(screen.getByRole('button', { name: 'Delete' }));
    expect(screen.getByRole('alertdialog')).toBeInTheDocument();
  });
});

describe('SimpleSelect', () => {
  it('picks an option', async () => {
    const onValueChange = jest.fn();
    render(
      <SimpleSelect
        aria-label="Verification Status"
        defaultValue="verified"
        onValueChange={onValueChange}
        options={[
          { value: 'verified', label: 'Verified' },
          { value: 'limited_access', label: 'Limited Access' },
        ]}
      />,
    );
    const trigger = screen.getByRole('combobox', { name: 'Verification Status' });
    expect(trigger).toHaveTextContent('Verified');
    await userEvent.click(trigger);
    await userEvent.click(await screen.findByRole('option', { name: 'Limited Access' }));
    expect(onValueChange).toHaveBeenCalledWith('limited_access');
  });
});

describe('Accordion', () => {
  it('opens a section', async () => {
    render(
      <Accordion type="multiple" defaultValue={['notes']}>
        <AccordionItem value="notes">
          <AccordionTrigger>Admin Notes</AccordionTrigger>
          <AccordionContent>Notes body</AccordionContent>
        </AccordionItem>
        <AccordionItem value="evidence">
          <AccordionTrigger>Verification Evidence</AccordionTrigger>
          <AccordionContent>Evidence body</AccordionContent>
        </AccordionItem>
      </Accordion>,
    );
    expect(screen.getByText('Notes body')).toBeVisible();
    expect(screen.queryByText('Evidence body')).not.toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Verification Evidence' }));
    expect(screen.getByText('Evidence body')).toBeInTheDocument();
  });
});
